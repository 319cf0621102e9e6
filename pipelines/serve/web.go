package serve

import (
	"embed"
	"io/fs"
	"net/http"
)

// The web page and what it loads, embedded: web/vendor holds the
// packages' minified files (make web-vendor fetches them from npm and
// writes them there; their licenses beside them), so that the page needs
// no network at run time.
//
//go:embed web
var webFiles embed.FS

// webHandler serves the page at / and its files.
func webHandler() http.Handler {
	sub, err := fs.Sub(webFiles, "web")
	if err != nil {
		// Unreachable: "web" is embedded above.
		return http.NotFoundHandler()
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'")
		files.ServeHTTP(w, r)
	})
}

// CountriesTopoJSON returns the world's country outlines the page draws
// (world-atlas countries-110m, TopoJSON), for other maps of the
// command's.
func CountriesTopoJSON() []byte {
	b, _ := webFiles.ReadFile("web/vendor/countries-110m.json") // embedded above
	return b
}
