package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Server answers the questions over HTTP.
type Server struct {
	cfg       Config
	src       *Source
	questions []Question
	metrics   *Metrics
	slots     chan struct{}
	log       *slog.Logger
	closing   atomic.Bool
	openapi   []byte
	mux       *http.ServeMux
}

// New returns a server of questions qs over src; log, if not nil, is told
// of failures.
func New(cfg Config, src *Source, qs []Question, log *slog.Logger) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, src: src, questions: qs, metrics: newMetrics(), slots: make(chan struct{}, cfg.MaxInFlight), log: log}
	var err error
	if s.openapi, err = openAPI(qs); err != nil {
		return nil, fmt.Errorf("the OpenAPI description: %w", err)
	}
	s.routes()
	return s, nil
}

// routes registers every path.
func (s *Server) routes() {
	mux := http.NewServeMux()
	for _, q := range s.questions {
		mux.HandleFunc("GET /api/"+q.Name, s.answer(q))
	}
	mux.HandleFunc("GET /api/{name}", s.counted("unknown", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, s.unknownQuestion(r.PathValue("name")))
	}))
	mux.HandleFunc("GET /healthz", s.counted("healthz", s.health))
	mux.HandleFunc("GET /metrics", s.counted("metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		age := time.Duration(-1)
		if at, _ := s.src.state(); !at.IsZero() {
			age = time.Since(at)
		}
		s.metrics.write(w, age)
	}))
	mux.HandleFunc("GET /openapi.json", s.counted("openapi", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(s.openapi)
	}))
	mux.Handle("GET /", s.counted("web", webHandler().ServeHTTP))
	s.mux = mux
}

// counted counts the requests of a page that is not a question.
func (s *Server) counted(name string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		h(sw, r)
		s.metrics.observe(name, sw.code, time.Since(start))
	}
}

// unknownQuestion is the message of a path that names no question.
func (s *Server) unknownQuestion(name string) string {
	names := make([]string, len(s.questions))
	for i, q := range s.questions {
		names[i] = q.Name
	}
	return fmt.Sprintf("unknown question %q (want %s or %s; /openapi.json describes them)", name, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// health answers /healthz: 200 while questions are answered, 503 once the
// server is shutting down. Its tables say what the answers are read from:
// "store", "snapshot" (with its time), "live" (the store this process's
// stream writes) or "cassandra".
func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	type health struct {
		Status   string `json:"status"`
		Tables   string `json:"tables"`
		Snapshot string `json:"snapshot,omitempty"`
	}
	at, tables := s.src.state()
	h := health{Status: "ok", Tables: tables}
	if !at.IsZero() {
		h.Snapshot = at.UTC().Format(time.RFC3339Nano)
	}
	code := http.StatusOK
	if s.closing.Load() {
		h.Status, code = "shutting down", http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(h)
}

// Handler returns the server's handler, for tests and embedding.
func (s *Server) Handler() http.Handler { return s.mux }

// Serve answers on ln until ctx ends, then shuts down: it stops taking
// connections, lets the answers under way end (for up to cfg.Grace, after
// which their connections are closed) and returns. Meanwhile it renews
// the tables' view every cfg.Refresh (Source). It does not close ln's
// source.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	renewCtx, stopRenew := context.WithCancel(ctx)
	defer stopRenew()
	go s.src.keepRenewing(renewCtx, s.cfg.Refresh, func(err error) {
		s.log.Warn("renewing the tables' view", "error", err.Error())
	})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serving on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	s.closing.Store(true)
	grace, cancel := context.WithTimeout(context.Background(), s.cfg.Grace)
	defer cancel()
	err := srv.Shutdown(grace)
	if errors.Is(err, context.DeadlineExceeded) {
		srv.Close()
		err = fmt.Errorf("answers still under way after %s (--grace) were cut", s.cfg.Grace)
	}
	if serr := <-done; err == nil && !errors.Is(serr, http.ErrServerClosed) {
		err = serr
	}
	return err
}
