# tweetindex: see README.md. Everything here needs only Go.
GO      ?= go
BIN     := bin/tweetindex
STORE   ?= .tweetindex/store
SAMPLE  := testdata/sample
BENCH_N ?= 100000

.PHONY: all build tools run test test-short fuzz bench bench-scale bench-paths check-expected sample vet lint clean demo-stream bench-query bench-postgres bench-query-cassandra test-cassandra prism-server worker-binary submit-flink submit-dataflow web-vendor bench-serve bench-fresh

all: build

# The build's name for tweetindex version (the VCS stamp is missing under -buildvcs=false).
VERSION ?= $(shell git describe --always --dirty 2>/dev/null)
build:
	$(GO) build -ldflags '-X main.buildVersion=$(VERSION)' -o $(BIN) ./pipelines/cmd/tweetindex

## run: build bin/tweetindex and the test servers (bin/devbroker: a Kafka broker, bin/devcql: a CQL
## server, both in memory), index the committed sample into $(STORE) and print the summary.
run: build tools
	@mkdir -p $(dir $(STORE))
	./$(BIN) index --input '$(SAMPLE)/*' --store $(STORE) --summary $(dir $(STORE))summary.json
	@echo "store: $(STORE)   try: ./$(BIN) dump --store $(STORE) --table frequency"

## tools: bin/devbroker and bin/devcql, the in-memory Kafka broker and CQL server the docs' examples use.
tools:
	$(GO) build -o bin/devbroker ./pipelines/cmd/devbroker
	$(GO) build -o bin/devcql ./pipelines/cmd/devcql

## test: every test of the repository (prism runs in process). CI runs it. testdata/postgres's test
## holds phrases to PostgreSQL where a server answers psql, and skips, saying so, elsewhere.
test: vet
	$(GO) test -count=1 -timeout 25m ./... ./testdata/gen/... ./testdata/postgres

## test-short: the inner loop, under a minute on 2 cores: every test but the long end-to-end
## ones, which skip under -short saying what the full suite covers. TESTFLAGS=-count=1 to rerun
## cached results.
TESTFLAGS ?=
test-short:
	$(GO) test -short -timeout 5m $(TESTFLAGS) ./... ./testdata/gen/... ./testdata/postgres

## vet: go vet over every package, the generator (testdata/gen/..., outside ./...) included.
vet:
	$(GO) vet ./... ./testdata/gen/... ./testdata/postgres

## lint: gofmt (must list no file), go vet and staticcheck (pinned; run through the module proxy,
## so go.mod does not list it) over every package and testdata/gen/..., and .ci/layers (no import
## points up schemas <- transforms/flow <- transforms <- io <- pipelines). CI runs it before make test.
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint: vet
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt -l lists files to format (gofmt -w them):"; echo "$$out"; exit 1; fi
	$(STATICCHECK) ./... ./testdata/gen/... ./testdata/postgres
	./.ci/layers

## fuzz: run each fuzz target for $(FUZZTIME) (make test runs only their seeds, as go test does):
## FuzzDecode (record bytes -> tweets or dead letters, the cells built and decoded back) and
## FuzzReadFile (format detection, decompression, tar/zip, lines or document).
## The engine minimizes every new interesting input for up to FUZZMINIMIZE (Go's default, 60s, stalled
## FuzzReadFile for a minute at a time: no inputs run meanwhile).
FUZZTIME ?= 60s
FUZZMINIMIZE ?= 5s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) ./schemas/
	$(GO) test -run '^$$' -fuzz '^FuzzReadFile$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) ./io/archiveio/

## bench: generate $(BENCH_N) realistic tweets and time bin/tweetindex index on them, $(BENCH_RUNS)
## times into fresh stores; it reports the median run.
BENCH_RUNS ?= 3
bench: build
	$(GO) test -run '^$$' -bench BenchmarkIndexCommand -benchtime 1x -timeout 60m ./pipelines/job/ -args -bench.tweets=$(BENCH_N) -bench.runs=$(BENCH_RUNS)

## bench-scale: index three shapes of generated tweets (1M over 1 hour, 1M over 30 days, 3M over
## 72 hours; BENCH_SHAPES to change them) into fresh stores and print, per shape, tweets/s, CPU
## microseconds per tweet, peak RSS and the tail (last tweet read to the end of the run). Then the
## runs into a store that holds tweets (BENCH_INCREMENTAL, TWEETS@SPAN: the next SPAN of TWEETS into a
## store of TWEETS, the same tweets again, TWEETS other tweets of the same days), each beside a fresh
## run of the same tweets, the stores checked against the generator and a fresh run over both inputs.
## The data (about 28 GB) is generated once into .bench/. Takes a while; not part of make test.
BENCH_SHAPES ?= 1000000@1h,1000000@720h,3000000@72h
BENCH_INCREMENTAL ?= 1000000@240h
bench-scale: build
	$(GO) test -run '^$$' -bench BenchmarkScale -benchtime 1x -timeout 180m ./pipelines/job/ -args -bench.shapes=$(BENCH_SHAPES) -bench.incremental=$(BENCH_INCREMENTAL)

## bench-paths: the paths data teams run, on the same $(BENCH_N) generated tweets (the tweets of
## make bench): files, a bounded Kafka read (bin/devbroker, 4 partitions) and the same topic read as a
## stream (--group --commit, drained at --stop latest) into the embedded store,
## files into Cassandra (bin/devcql) in process and through a prism job server with the Go SDK's
## worker pool (workers in other processes, as on Flink). One table: wall, tweets/s, CPU microseconds
## a tweet of each process (devcql and devbroker apart), peak RSS, and whether the path's tables equal
## the in-process file run's; then rows, requests and bytes a tweet written to Cassandra.
## BENCH_PATHS picks paths (files-store always runs: the reference). Not part of make test.
BENCH_PATHS ?= files-store,kafka-store,kafka-stream,files-cassandra,pool-cassandra
bench-paths: build
	$(GO) test -run '^$$' -bench BenchmarkPaths -benchtime 1x -timeout 60m ./pipelines/job/ -args -bench.tweets=$(BENCH_N) -bench.paths=$(BENCH_PATHS)

## check-expected: compare a store that generated tweets were indexed into, and its run's summary,
## with the generator's expectations (DATA/EXPECTED.json): the summary's counts, the rows of the raw,
## geo, frequency and dead-letter tables, every frequency count, the rows of the terms it counts.
##   go run ./testdata/gen bench -n 200000 -seed 5 -span 720h -out DATA
##   bin/tweetindex index --input 'DATA/*.jsonl' --store STORE --summary SUMMARY
##   make check-expected DATA=DATA STORE=STORE SUMMARY=SUMMARY
check-expected:
	@test -n "$(DATA)" -a -n "$(STORE)" -a -n "$(SUMMARY)" || { echo "usage: make check-expected DATA=DIR STORE=DIR SUMMARY=FILE" >&2; exit 2; }
	$(GO) test -count=1 -v -run '^TestStoreMatchesExpected$$' ./pipelines/job/ -args -check.data=$(abspath $(DATA)) -check.store=$(abspath $(STORE)) -check.summary=$(abspath $(SUMMARY))

## bench-query: index $(BENCHQ_N) generated tweets over three days into $(BENCHQ_DIR)/store (once;
## kept for the next run) and time the ten questions from the indexes and by a scan of the raw table.
BENCHQ_N   ?= 1000000
BENCHQ_DIR ?= .tweetindex/benchq-$(BENCHQ_N)
bench-query: build
	@if [ ! -f $(BENCHQ_DIR)/indexed ]; then \
	  set -e; rm -rf $(BENCHQ_DIR); \
	  $(GO) run ./testdata/gen bench -n $(BENCHQ_N) -seed 6006 -span 72h -gzip -out $(BENCHQ_DIR)/input; \
	  ./$(BIN) index --input '$(BENCHQ_DIR)/input/*.jsonl.gz' --store $(BENCHQ_DIR)/store; \
	  touch $(BENCHQ_DIR)/indexed; \
	fi
	./$(BIN) query bench --store $(BENCHQ_DIR)/store

## bench-postgres: ask PostgreSQL + PostGIS the questions of bench-query on the same tweets and print
## both times and whether the answers are the same (testdata/postgres; needs psql and a database
## $(PGDB) with the postgis extension; not part of make test).
PGDB ?= tweets
bench-postgres: build
	@test -d $(BENCHQ_DIR)/store || $(MAKE) bench-query BENCHQ_N=$(BENCHQ_N)
	$(GO) run ./testdata/postgres -store $(BENCHQ_DIR)/store -db $(PGDB) $(PGFLAGS)

## bench-query-cassandra: the same through gocql against devcql (the in-memory CQL test server on
## 127.0.0.1:$(DEVCQL_PORT)), on $(BENCHQC_N) tweets; devcql is stopped at the end.
BENCHQC_N   ?= 100000
DEVCQL_PORT ?= 19042
bench-query-cassandra: build
	$(GO) build -o bin/devcql ./pipelines/cmd/devcql
	@if [ ! -d .tweetindex/benchqc-$(BENCHQC_N) ]; then \
	  $(GO) run ./testdata/gen bench -n $(BENCHQC_N) -seed 6006 -span 72h -gzip -out .tweetindex/benchqc-$(BENCHQC_N); fi
	@set -e; ./bin/devcql -addr 127.0.0.1:$(DEVCQL_PORT) > /dev/null & pid=$$!; trap "kill $$pid" EXIT; sleep 1; \
	  ./$(BIN) schema apply --cassandra 127.0.0.1:$(DEVCQL_PORT); \
	  ./$(BIN) index --input '.tweetindex/benchqc-$(BENCHQC_N)/*.jsonl.gz' --cassandra 127.0.0.1:$(DEVCQL_PORT); \
	  ./$(BIN) query bench --cassandra 127.0.0.1:$(DEVCQL_PORT)

## demo-stream: a Kafka broker on 127.0.0.1 (devbroker), the sample replayed into it at a
## steady rate, and the streaming pipeline reading it into $(DEMO_STORE), printing the counts
## per minute as they grow. Ctrl-C drains and stops (devbroker demo -h for the knobs).
DEMO_STORE ?= $(dir $(STORE))stream
demo-stream: build
	$(GO) build -o bin/devbroker ./pipelines/cmd/devbroker
	rm -rf $(DEMO_STORE)
	./bin/devbroker demo -bin $(BIN) -store $(DEMO_STORE) $(SAMPLE)

## bench-serve: index $(BENCHS_N) generated tweets over $(BENCHS_SPAN) into $(BENCHS_DIR)/store (once; kept
## for the next run), then $(BENCHS_CLIENTS) concurrent clients ask $(BENCHS_REQUESTS) questions of a mix
## through tweetindex serve's API: requests/s, and p50/p99 per question. Not part of make test.
BENCHS_N        ?= 1000000
BENCHS_SPAN     ?= 24h
BENCHS_DIR      ?= .tweetindex/benchs-$(BENCHS_N)
BENCHS_CLIENTS  ?= 50
BENCHS_REQUESTS ?= 5000
bench-serve: build
	@if [ ! -f $(BENCHS_DIR)/indexed ]; then \
	  set -e; rm -rf $(BENCHS_DIR); \
	  $(GO) run ./testdata/gen bench -n $(BENCHS_N) -seed 4242 -span $(BENCHS_SPAN) -gzip -out $(BENCHS_DIR)/input; \
	  ./$(BIN) index --input '$(BENCHS_DIR)/input/*.jsonl.gz' --store $(BENCHS_DIR)/store; \
	  rm -rf $(BENCHS_DIR)/input; touch $(BENCHS_DIR)/indexed; \
	fi
	$(GO) test -run '^$$' -bench '^BenchmarkServeLoad$$' -benchtime $(BENCHS_REQUESTS)x -timeout 60m ./pipelines/cmd/tweetindex/ \
	  -args -serve.store=$(abspath $(BENCHS_DIR))/store -serve.clients=$(BENCHS_CLIENTS)

## bench-fresh: produce-to-answer latency of a stream that serves its own store (index --kafka ... --serve):
## bin/devbroker, the stream in its own process (the benchmark builds both), background tweets at each of $(FRESH_RATES) tweets/s and
## $(FRESH_PROBES) probe tweets, each asked for over the API every 10 ms until it is answered; p50/p90/p99
## and the worst per rate. FRESH_ARGS adds flags of index (e.g. FRESH_ARGS='--kafka-checkpoint 100ms').
## Not part of make test.
FRESH_RATES  ?= 0,2000
FRESH_PROBES ?= 100
FRESH_ARGS   ?=
bench-fresh:
	$(GO) test -run '^$$' -bench '^BenchmarkServeFreshness$$' -benchtime 1x -timeout 30m ./pipelines/job/ \
	  -args -fresh.rates=$(FRESH_RATES) -fresh.probes=$(FRESH_PROBES) -fresh.args='$(FRESH_ARGS)'

## web-vendor: fetch the packages the web page of tweetindex serve loads from npm, at the versions
## pinned here, and write their minified files and licenses into $(WEB_VENDOR) (committed and
## embedded in the binary: make run and make test need only Go, the page no network). Needs npm.
WEB_VENDOR          := pipelines/serve/web/vendor
LEAFLET_VERSION     ?= 1.9.4
TOPOJSON_VERSION    ?= 3.1.0
WORLD_ATLAS_VERSION ?= 2.0.2
web-vendor:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	  (cd "$$tmp" && npm pack --silent leaflet@$(LEAFLET_VERSION) topojson-client@$(TOPOJSON_VERSION) world-atlas@$(WORLD_ATLAS_VERSION) > /dev/null); \
	  for p in leaflet-$(LEAFLET_VERSION) topojson-client-$(TOPOJSON_VERSION) world-atlas-$(WORLD_ATLAS_VERSION); do \
	    mkdir -p "$$tmp/$$p" && tar -xzf "$$tmp/$$p.tgz" -C "$$tmp/$$p"; done; \
	  rm -rf $(WEB_VENDOR) && mkdir -p $(WEB_VENDOR); \
	  cp "$$tmp/leaflet-$(LEAFLET_VERSION)/package/dist/leaflet.js" "$$tmp/leaflet-$(LEAFLET_VERSION)/package/dist/leaflet.css" $(WEB_VENDOR)/; \
	  cp "$$tmp/leaflet-$(LEAFLET_VERSION)/package/LICENSE" $(WEB_VENDOR)/LICENSE-leaflet; \
	  cp "$$tmp/topojson-client-$(TOPOJSON_VERSION)/package/dist/topojson-client.min.js" $(WEB_VENDOR)/; \
	  cp "$$tmp/topojson-client-$(TOPOJSON_VERSION)/package/LICENSE" $(WEB_VENDOR)/LICENSE-topojson-client; \
	  cp "$$tmp/world-atlas-$(WORLD_ATLAS_VERSION)/package/countries-110m.json" $(WEB_VENDOR)/; \
	  cp "$$tmp/world-atlas-$(WORLD_ATLAS_VERSION)/package/LICENSE" $(WEB_VENDOR)/LICENSE-world-atlas; \
	  { echo "Written by make web-vendor from npm; embedded in tweetindex serve."; \
	    echo "leaflet $(LEAFLET_VERSION): leaflet.js, leaflet.css (BSD-2-Clause, LICENSE-leaflet)"; \
	    echo "topojson-client $(TOPOJSON_VERSION): topojson-client.min.js (ISC, LICENSE-topojson-client)"; \
	    echo "world-atlas $(WORLD_ATLAS_VERSION): countries-110m.json, Natural Earth 1:110m countries (ISC, LICENSE-world-atlas; Natural Earth is public domain)"; \
	    echo; echo "sha256 of the npm tarballs:"; (cd "$$tmp" && sha256sum *.tgz); } > $(WEB_VENDOR)/README; \
	  ls -l $(WEB_VENDOR)

## sample: regenerate the committed sample (deterministic).
sample:
	$(GO) run ./testdata/gen sample -seed 20261122 -out $(SAMPLE)

clean:
	rm -rf bin .tweetindex

## test-cassandra: the Cassandra integration tests against a real cluster:
##   CASSANDRA_HOSTS=127.0.0.1:9042 make test-cassandra   (runners/cassandra starts one)
## They skip with a message when CASSANDRA_HOSTS is unset.
test-cassandra:
	@if [ -z "$$CASSANDRA_HOSTS" ]; then echo "CASSANDRA_HOSTS is not set: start a cluster (runners/cassandra/README.md) and run CASSANDRA_HOSTS=host:9042 make test-cassandra"; fi
	$(GO) test -count=1 -v -run Integration ./io/cassandraio/...

## prism-server: build bin/prism (the Beam Go SDK's runner) and run it as a standalone job server on
## localhost:$(JOB_PORT), web UI on $(WEB_PORT). Submit to it with --runner=universal
## --endpoint=localhost:$(JOB_PORT) --environment_type=LOOPBACK (runners/local/README.md).
JOB_PORT ?= 8073
WEB_PORT ?= 8074
prism-server:
	$(GO) build -o bin/prism github.com/apache/beam/sdks/v2/go/cmd/prism
	./bin/prism --job_port=$(JOB_PORT) --web_port=$(WEB_PORT)

## worker-binary: bin/tweetindex-linux-amd64, a static build that cluster workers run
## (staged with --worker_binary, so submitting from macOS works too).
WORKER_BIN := bin/tweetindex-linux-amd64
worker-binary:
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 $(GO) build -trimpath -o $(WORKER_BIN) ./pipelines/cmd/tweetindex

# The sink of cluster runs: Cassandra (the command refuses the embedded store when the workers are
# other processes; see runners/flink/README.md).
CASSANDRA ?=
KEYSPACE  ?= tweetindex

## submit-flink: index INPUT (a glob the workers can read) on Flink through the Beam job server at
## $(FLINK_ENDPOINT) (runners/flink/docker-compose.yml starts both), workers from the Go SDK worker
## pool at $(FLINK_WORKER_POOL) (EXTERNAL), into CASSANDRA. Not run here: no Docker/JVM.
##   make submit-flink INPUT='/srv/archive/2026/11/01/*' CASSANDRA=cassandra:9042
FLINK_ENDPOINT    ?= localhost:8099
FLINK_WORKER_POOL ?= localhost:50000
FLINK_PARALLELISM ?= 2
INPUT             ?= $(abspath $(SAMPLE))/*
submit-flink:
	$(if $(CASSANDRA),,$(error submit-flink: set CASSANDRA (host:port): the workers are other processes and cannot share an embedded store))
	$(MAKE) build worker-binary
	./$(BIN) index --input '$(INPUT)' --cassandra $(CASSANDRA) --keyspace $(KEYSPACE) \
	  --runner=universal --endpoint=$(FLINK_ENDPOINT) \
	  --environment_type=EXTERNAL --environment_config=$(FLINK_WORKER_POOL) \
	  --worker_binary=$(WORKER_BIN) --parallelism=$(FLINK_PARALLELISM) --job_name=tweetindex-$(shell date -u +%Y%m%d-%H%M%S)

## submit-dataflow: index a Kafka topic (KAFKA, TOPIC; bounded by KAFKA_STOP) on Google Cloud
## Dataflow into Cassandra (CASSANDRA), staging in gs://$(BUCKET). Needs PROJECT, REGION, BUCKET.
## Not run here (no network to GCP); see runners/dataflow/README.md.
PROJECT ?=
REGION  ?=
BUCKET  ?=
KAFKA   ?=
TOPIC   ?=
KAFKA_STOP ?= latest
DATAFLOW_MACHINE     ?= n2-standard-4
DATAFLOW_MAX_WORKERS ?= 10
DATAFLOW_IMAGE       ?=
submit-dataflow:
	$(if $(and $(PROJECT),$(REGION),$(BUCKET)),,$(error submit-dataflow: set PROJECT, REGION and BUCKET, e.g. make submit-dataflow PROJECT=my-project REGION=us-central1 BUCKET=my-bucket KAFKA=10.0.0.5:9092 TOPIC=tweets CASSANDRA=10.0.0.7))
	$(if $(and $(KAFKA),$(TOPIC),$(CASSANDRA)),,$(error submit-dataflow: set KAFKA, TOPIC and CASSANDRA: Dataflow workers read Kafka (--input reads files local to the workers, and they have none) and cannot write an embedded store))
	$(MAKE) build worker-binary
	./$(BIN) index --kafka $(KAFKA) --topic $(TOPIC) --stop $(KAFKA_STOP) --cassandra $(CASSANDRA) --keyspace $(KEYSPACE) \
	  --runner=dataflow --project=$(PROJECT) --region=$(REGION) \
	  --staging_location=gs://$(BUCKET)/tweetindex/staging --temp_location=gs://$(BUCKET)/tweetindex/temp \
	  --worker_machine_type=$(DATAFLOW_MACHINE) --max_num_workers=$(DATAFLOW_MAX_WORKERS) \
	  --worker_binary=$(WORKER_BIN) $(if $(DATAFLOW_IMAGE),--sdk_container_image=$(DATAFLOW_IMAGE)) \
	  --job_name=tweetindex-$(shell date -u +%Y%m%d-%H%M%S)
