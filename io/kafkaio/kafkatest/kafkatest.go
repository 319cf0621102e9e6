// Package kafkatest runs an in-process Kafka broker, franz-go's kfake,
// for tests and local demos, and produces messages into it with
// segmentio/kafka-go, the client kafkaio reads with. Everything goes
// through the real Kafka wire protocol on a loopback TCP port.
package kafkatest

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Options configure Start.
type Options struct {
	// Addr is the host:port to listen on; empty means 127.0.0.1 on a free
	// port. The broker advertises this address to clients.
	Addr string
	// DataDir, when set, persists topics, records and committed offsets
	// there, across Restart and across processes. Empty keeps everything
	// in memory (and Restart then starts an empty broker).
	DataDir string
	// Extra are further kfake options (SASL users, TLS, ...).
	Extra []kfake.Opt
}

// Broker is a running single-node kfake cluster.
type Broker struct {
	topics map[string]int
	opts   Options
	host   string
	port   int

	mu sync.Mutex
	c  *kfake.Cluster
}

// Start starts a broker with the given topics (name to partition count).
// Close it when done.
func Start(topics map[string]int, o Options) (*Broker, error) {
	host, port := "127.0.0.1", 0
	if o.Addr != "" {
		h, p, err := net.SplitHostPort(o.Addr)
		if err != nil {
			return nil, fmt.Errorf("kafkatest: address %q: %w", o.Addr, err)
		}
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("kafkatest: address %q: bad port", o.Addr)
		}
		if h != "" {
			host = h
		}
	}
	b := &Broker{topics: topics, opts: o, host: host, port: port}
	if err := b.start(); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *Broker) start() error {
	host := b.host
	opts := []kfake.Opt{
		kfake.Ports(b.port),
		kfake.ListenFn(func(network, _ string) (net.Listener, error) {
			return net.Listen(network, net.JoinHostPort(host, strconv.Itoa(b.port)))
		}),
	}
	if b.opts.DataDir != "" {
		opts = append(opts, kfake.DataDir(b.opts.DataDir))
	}
	for name, n := range b.topics {
		opts = append(opts, kfake.SeedTopics(int32(n), name))
	}
	c, err := kfake.NewCluster(append(opts, b.opts.Extra...)...)
	if err != nil {
		return fmt.Errorf("kafkatest: starting broker: %w", err)
	}
	_, p, err := net.SplitHostPort(c.ListenAddrs()[0])
	if err != nil {
		c.Close()
		return fmt.Errorf("kafkatest: broker address: %w", err)
	}
	b.port, _ = strconv.Atoi(p) // keep a port picked for us across restarts
	// A broker this cannot ask (one that requires client certificates)
	// keeps kfake's answer: librdkafka then cannot use SASL with it.
	_ = advertiseSASLHandshakeV0(c, b.Addr())
	b.mu.Lock()
	b.c = c
	b.mu.Unlock()
	return nil
}

// advertiseSASLHandshakeV0 makes the broker's ApiVersions answer list
// SaslHandshake from version 0, as Kafka's brokers do. kfake serves
// version 1 only (the handshake followed by SaslAuthenticate requests),
// which is what every client of today sends, but librdkafka (kcat) looks
// for version 0 in the advertised range before it uses SASL at all, and
// otherwise fails with "SASL Handshake not supported by broker". It asks
// the broker for its answer once, and serves that answer, so amended, to
// every ApiVersions request the broker can answer.
func advertiseSASLHandshakeV0(c *kfake.Cluster, addr string) error {
	want, err := askApiVersions(addr)
	if err != nil {
		return err
	}
	for i := range want.ApiKeys {
		if want.ApiKeys[i].ApiKey == int16(kmsg.SASLHandshake) {
			want.ApiKeys[i].MinVersion = 0
		}
	}
	c.ControlKey(int16(kmsg.ApiVersions), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req, ok := r.(*kmsg.ApiVersionsRequest)
		if !ok || req.Version > want.Version {
			return nil, nil, false // kfake's own answer (a version it downgrades, say)
		}
		resp := *want
		resp.Version = req.Version
		return &resp, nil, true
	})
	return nil
}

// askApiVersions sends the broker at addr an ApiVersions request (v5, the
// newest kfake serves),
// in plaintext or else over TLS (unverified: it is the broker this
// package started), and returns its answer.
func askApiVersions(addr string) (*kmsg.ApiVersionsResponse, error) {
	var lastErr error
	for _, useTLS := range []bool{false, true} {
		d := &net.Dialer{Timeout: 5 * time.Second}
		var conn net.Conn
		var err error
		if useTLS {
			conn, err = tls.DialWithDialer(d, "tcp", addr, &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}) //nolint:gosec // our own broker
		} else {
			conn, err = d.Dial("tcp", addr)
		}
		if err != nil {
			lastErr = err
			continue
		}
		resp, err := apiVersions(conn)
		conn.Close()
		if err == nil {
			return resp, nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("asking the broker its API versions: %w", lastErr)
}

func apiVersions(conn net.Conn) (*kmsg.ApiVersionsResponse, error) {
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 5
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kafkatest", "1"
	msg := kmsg.NewRequestFormatter(kmsg.FormatterClientID("kafkatest")).AppendRequest(nil, req, 1)
	if _, err := conn.Write(msg); err != nil {
		return nil, err
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n < 4 || n > 1<<20 {
		return nil, fmt.Errorf("an answer of %d bytes", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(conn, body); err != nil {
		return nil, err
	}
	resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
	resp.Version = req.Version
	if err := resp.ReadFrom(body[4:]); err != nil { // after the correlation id
		return nil, err
	}
	if resp.ErrorCode != 0 {
		return nil, fmt.Errorf("ApiVersions error %d", resp.ErrorCode)
	}
	return resp, nil
}

// Addr returns the broker's host:port.
func (b *Broker) Addr() string { return net.JoinHostPort(b.host, strconv.Itoa(b.port)) }

// Cluster returns the running kfake cluster, for fault injection.
func (b *Broker) Cluster() *kfake.Cluster {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.c
}

// Close stops the broker, persisting its state if it has a DataDir.
func (b *Broker) Close() {
	b.mu.Lock()
	c := b.c
	b.c = nil
	b.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// Restart stops the broker, closing every client connection, and starts it
// again on the same address with the same data (if it has a DataDir).
func (b *Broker) Restart() error {
	b.Close()
	return b.start()
}

// DropFetchConnections makes the broker close the connection of each of the
// next n fetch requests instead of answering it, as a broker that goes away
// mid-read does. The returned function reports how many were dropped.
func (b *Broker) DropFetchConnections(n int) (dropped func() int) {
	var count atomic.Int64
	c := b.Cluster()
	c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		if count.Add(1) < int64(n) {
			c.KeepControl()
		} else {
			c.DropControl() // KeepControl is sticky
		}
		return nil, errors.New("kafkatest: dropping the connection"), true
	})
	return func() int { return int(count.Load()) }
}

// DeleteRecords deletes the records of a partition below offset before, as
// retention does: the log then starts at before.
func (b *Broker) DeleteRecords(ctx context.Context, topic string, partition int, before int64) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	defer cl.Close()
	p := kmsg.NewDeleteRecordsRequestTopicPartition()
	p.Partition, p.Offset = int32(partition), before
	t := kmsg.NewDeleteRecordsRequestTopic()
	t.Topic, t.Partitions = topic, []kmsg.DeleteRecordsRequestTopicPartition{p}
	req := kmsg.NewPtrDeleteRecordsRequest()
	req.Topics, req.TimeoutMillis = []kmsg.DeleteRecordsRequestTopic{t}, 10_000
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("kafkatest: deleting records: %w", err)
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				return fmt.Errorf("kafkatest: deleting records of %s/%d: %w", topic, partition, err)
			}
		}
	}
	return nil
}

// NewBroker starts a broker for the test, persisting to a temporary
// directory so that Restart keeps its data, and closes it when the test
// ends.
func NewBroker(tb testing.TB, topics map[string]int, extra ...kfake.Opt) *Broker {
	tb.Helper()
	b, err := Start(topics, Options{DataDir: tb.TempDir(), Extra: extra})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(b.Close)
	return b
}

// StartBroker starts a broker for the test with the given topics (name to
// partition count) and returns its address. It is closed when the test ends.
func StartBroker(tb testing.TB, topics map[string]int) (addr string) {
	tb.Helper()
	return NewBroker(tb, topics).Addr()
}

// Produce writes values, in order, to one partition of topic; it fails the
// test on error. Call it from the test's goroutine.
func Produce(tb testing.TB, addr, topic string, partition int, values [][]byte) {
	tb.Helper()
	msgs := make([]kafka.Message, len(values))
	for i, v := range values {
		msgs[i] = kafka.Message{Value: v}
	}
	ProduceMessages(tb, addr, topic, partition, msgs)
}

// ProduceMessages is Produce with whole messages: keys, headers and
// timestamps (a zero Time is the time of producing).
func ProduceMessages(tb testing.TB, addr, topic string, partition int, msgs []kafka.Message) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := WriteMessages(ctx, addr, topic, partition, msgs); err != nil {
		tb.Fatal(err)
	}
}

// maxRequestBytes keeps each produce request well under kfake's (and
// Kafka's) default message.max.bytes of 1 MiB.
const maxRequestBytes = 512 << 10

// WriteMessages writes msgs, in order, to one partition of topic at the
// broker at addr, in as few requests as its size limits allow.
func WriteMessages(ctx context.Context, addr, topic string, partition int, msgs []kafka.Message) error {
	return WriteMessagesWith(ctx, &kafka.Dialer{Timeout: 10 * time.Second}, addr, topic, partition, msgs)
}

// WriteMessagesWith is WriteMessages through d: a dialer with the TLS and
// SASL settings of a secured broker.
func WriteMessagesWith(ctx context.Context, d *kafka.Dialer, addr, topic string, partition int, msgs []kafka.Message) error {
	conn, err := d.DialLeader(ctx, "tcp", addr, topic, partition)
	if err != nil {
		return fmt.Errorf("kafkatest: dialing the leader of %s/%d: %w", topic, partition, err)
	}
	defer conn.Close()
	if d, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(d); err != nil {
			return err
		}
	}
	for len(msgs) > 0 {
		n, size := 0, 0
		for n < len(msgs) && (n == 0 || size+len(msgs[n].Value)+len(msgs[n].Key)+64 <= maxRequestBytes) {
			size += len(msgs[n].Value) + len(msgs[n].Key) + 64
			n++
		}
		if _, err := conn.WriteMessages(msgs[:n]...); err != nil {
			return fmt.Errorf("kafkatest: producing to %s/%d: %w", topic, partition, err)
		}
		msgs = msgs[n:]
	}
	return nil
}

// ProduceTransaction writes values, in order, to one partition of topic in
// one transaction, which it commits (or aborts): the broker then writes a
// transaction marker, a control record that takes an offset of its own
// and is no message. It fails the test on error.
func ProduceTransaction(tb testing.TB, addr, topic string, partition int, values [][]byte, commit bool) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.TransactionalID("kafkatest-"+topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(topic))
	if err != nil {
		tb.Fatal(err)
	}
	defer cl.Close()
	if err := cl.BeginTransaction(); err != nil {
		tb.Fatal(err)
	}
	for _, v := range values {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: v, Partition: int32(partition)}).FirstErr(); err != nil {
			tb.Fatalf("kafkatest: producing in a transaction to %s/%d: %v", topic, partition, err)
		}
	}
	if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
		tb.Fatalf("kafkatest: ending the transaction: %v", err)
	}
}
