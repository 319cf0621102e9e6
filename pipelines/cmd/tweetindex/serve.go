package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/io/storeio"
	"github.com/tweetindex/tweetindex/pipelines/serve"
)

// serveCacheSize is the store's block cache when served: a server asks
// again, as query bench does.
const serveCacheSize = storeio.ReadCacheSize

func runServe(args []string) error {
	c := newCommand("serve", "tweetindex serve (--store DIR | --cassandra HOSTS ...) [--addr 127.0.0.1:8080] [--timeout 60s] [--max-inflight 32]",
		"serve answers the questions of query over HTTP, as JSON lines (or CSV, GeoJSON) at /api/QUESTION with the flags of query\n"+
			"as parameters, with their description at /openapi.json, /healthz, Prometheus metrics at /metrics and a web page at /.\n"+
			"A store a stream is writing is read through its snapshots, moving to each newer one. SIGTERM or Ctrl-C stops it,\n"+
			"after the answers under way (up to --grace). docs/serve.md has the whole reference.")
	var sf sinkFlags
	sf.register(c.fs, false)
	cfg := serve.Defaults
	c.fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "address to listen on, host:port (:8080 listens on every interface: the API has no authentication)")
	c.fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "longest time a request may take, its answer's streaming included")
	c.fs.IntVar(&cfg.MaxInFlight, "max-inflight", cfg.MaxInFlight, "questions answered at once; more wait for a slot (up to --timeout, then 503)")
	c.fs.DurationVar(&cfg.Refresh, "refresh", cfg.Refresh, "how often to look for a newer snapshot of a store a stream is writing (and renew a keyspace's extent)")
	c.fs.DurationVar(&cfg.Grace, "grace", cfg.Grace, "on SIGTERM or Ctrl-C, how long the answers under way may take before their connections are closed")
	logFormat := c.fs.String("log-format", "text", "format of the lines on stderr: text, or json (one object per line)")
	if err := c.parseNoArgs(args); err != nil {
		return err
	}
	if err := sf.checkRead(); err != nil {
		return asUsage(err)
	}
	if err := cfg.Validate(); err != nil {
		return asUsage(err)
	}
	if !slices.Contains(logFormats, *logFormat) {
		return usagef("--log-format %q: want text or json", *logFormat)
	}
	log := newRunLogger(os.Stderr, *logFormat)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	src, err := serve.OpenSource(ctx, serve.SourceConfig{
		Open:  func() (*sink.Sink, error) { return sf.openForQuery(serveCacheSize) },
		Store: sf.store,
	})
	if err != nil {
		return err
	}
	defer src.Close()
	srv, err := serve.New(cfg, src, serveQuestions(), log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", cfg.Addr, err)
	}
	url := fmt.Sprintf("http://%s/", ln.Addr())
	log.Info("serving", "url", url, line(fmt.Sprintf("serving %s (questions at %sapi/QUESTION, described at %sopenapi.json); Ctrl-C stops", url, url, url)))
	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	log.Info("stopped", line("stopped"))
	return nil
}
