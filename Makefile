# tweetindex: see README.md. Everything here needs only Go.
GO      ?= go
BIN     := bin/tweetindex
STORE   ?= .tweetindex/store
SAMPLE  := testdata/sample
BENCH_N ?= 100000

.PHONY: all build run test test-short bench sample vet clean demo-stream test-cassandra

all: build

build:
	$(GO) build -o $(BIN) ./pipelines/cmd/tweetindex

## run: index the committed sample into $(STORE) and print the summary.
run: build
	@mkdir -p $(dir $(STORE))
	./$(BIN) index --input '$(SAMPLE)/*' --store $(STORE) --summary $(dir $(STORE))summary.json
	@echo "store: $(STORE)   try: ./$(BIN) dump --store $(STORE) --table frequency"

## test: every test of the repository (prism runs in process).
test:
	$(GO) vet ./... ./testdata/gen
	$(GO) test -count=1 -timeout 25m ./... ./testdata/gen

## bench: generate $(BENCH_N) realistic tweets and time bin/tweetindex index on them.
bench: build
	$(GO) test -run '^$$' -bench BenchmarkIndexCommand -benchtime 1x -timeout 60m ./pipelines/ -args -bench.tweets=$(BENCH_N)

## demo-stream: a Kafka broker on 127.0.0.1 (devbroker), the sample replayed into it at a
## steady rate, and the streaming pipeline reading it into $(DEMO_STORE), printing the counts
## per minute as they grow. Ctrl-C drains and stops (devbroker demo -h for the knobs).
DEMO_STORE ?= $(dir $(STORE))stream
demo-stream: build
	$(GO) build -o bin/devbroker ./pipelines/cmd/devbroker
	rm -rf $(DEMO_STORE)
	./bin/devbroker demo -bin $(BIN) -store $(DEMO_STORE) $(SAMPLE)

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
