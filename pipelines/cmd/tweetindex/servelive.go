package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"time"

	"github.com/tweetindex/tweetindex/io/sink"
	"github.com/tweetindex/tweetindex/pipelines"
	"github.com/tweetindex/tweetindex/pipelines/serve"
)

// liveServeFlags are index's flags that serve the store a stream writes,
// live, from the stream's own process (--serve).
type liveServeFlags struct {
	addr    string
	refresh time.Duration
}

// defaultLiveRefresh is how often a stream's server reads the data's
// extent again (what an open range means): a question with both ends of
// its range given does not wait for it.
const defaultLiveRefresh = time.Second

func (f *liveServeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "serve", "", "a stream into --store also answers the questions of query over HTTP on this address (host:port, as tweetindex serve --addr), from the store as it writes it: a tweet is answerable once written, not at the next snapshot")
	fs.DurationVar(&f.refresh, "serve-refresh", defaultLiveRefresh, "with --serve: how often the server reads the data's extent again (what a range without --from or --to covers)")
}

// check says, in one line, what is wrong with --serve for the run cfg.
func (f *liveServeFlags) check(cfg pipelines.Config) error {
	if f.addr == "" {
		if f.refresh != defaultLiveRefresh {
			return errors.New("--serve-refresh without --serve: add --serve ADDR (127.0.0.1:8080) to serve the stream's store")
		}
		return nil
	}
	switch {
	case cfg.Cassandra != nil:
		return errors.New("--serve serves the embedded store a stream writes (--store DIR); a keyspace is served by tweetindex serve --cassandra HOSTS, in its own process, as fresh as its writers")
	case cfg.Kafka == nil:
		return errors.New("--serve needs a stream (--kafka BROKERS --topic T, without --stop): a run over files ends; serve its store afterwards with tweetindex serve --store DIR")
	case !cfg.Streaming():
		return errors.New("--serve needs a stream: a bounded Kafka read (--stop) ends; drop --stop, or serve the store afterwards with tweetindex serve --store DIR")
	case f.refresh <= 0:
		return fmt.Errorf("--serve-refresh %s: want a positive duration (1s)", f.refresh)
	}
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return fmt.Errorf("--serve %q: want host:port (127.0.0.1:8080; :8080 listens on every interface)", f.addr)
	}
	return nil
}

// serveLive starts answering the questions of query over HTTP on
// f.addr from the store of the stream cfg, live: the store is opened
// here, before the run, as the process's shared store (storeio.OpenServed:
// the stream's writers share it; the server's reads schedule no
// compaction), and read as the writers write it. stop shuts the server
// down (the answers under way end first, up to serve.Defaults.Grace) and
// closes its hold on the store; call it once the run has returned.
func serveLive(cfg pipelines.Config, f liveServeFlags, r runFlags) (stop func(), err error) {
	scfg := serve.Config{Addr: f.addr, Refresh: f.refresh}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return nil, fmt.Errorf("--serve %s: %w", f.addr, err)
	}
	src, err := serve.OpenSource(context.Background(), serve.SourceConfig{
		Open:  func() (*sink.Sink, error) { return sink.Open(sink.Config{Store: cfg.Store, Served: true}) },
		Store: cfg.Store,
		Live:  true,
	})
	if err != nil {
		ln.Close()
		return nil, err
	}
	srv, err := serve.New(scfg, src, serveQuestions(), r.log)
	if err != nil {
		ln.Close()
		src.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	url := fmt.Sprintf("http://%s/", ln.Addr())
	r.log.Info("serving", "url", url, line(fmt.Sprintf("serving the stream's store live at %s (questions at %sapi/QUESTION)", url, url)))
	return func() {
		cancel()
		if err := <-done; err != nil {
			r.log.Warn("serving", "error", err.Error(), line("serving: "+err.Error()))
		}
		src.Close()
		r.log.Info("stopped serving", line("stopped serving "+url))
	}, nil
}
