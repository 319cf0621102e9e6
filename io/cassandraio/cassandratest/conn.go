package cassandratest

import (
	"bufio"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
)

// conn is one client connection. Frames are read in order; STARTUP,
// OPTIONS and REGISTER are answered in order, QUERY, PREPARE, EXECUTE and
// BATCH each in their own goroutine (answers may overtake each other, as
// the stream ids allow). One writer goroutine sends the answers.
type conn struct {
	srv *Server
	nc  net.Conn

	out       chan []byte
	drained   chan struct{} // closed when no request will send again: the writer sends what is queued and ends
	done      chan struct{}
	closeOnce sync.Once
	ready     atomic.Bool // STARTUP done, and the authentication if asked
	authWait  atomic.Bool // STARTUP done, waiting for AUTH_RESPONSE
	events    atomic.Bool // registered for SCHEMA_CHANGE
	requests  sync.WaitGroup

	mu       sync.Mutex
	keyspace string // set by USE
}

func newConn(s *Server, nc net.Conn) *conn {
	return &conn{srv: s, nc: nc, out: make(chan []byte, 256), drained: make(chan struct{}), done: make(chan struct{})}
}

// close drops the connection; requests in flight are not answered.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		close(c.done)
		c.nc.Close()
	})
}

func (c *conn) serve() {
	var writer sync.WaitGroup
	writer.Add(1)
	go func() {
		defer writer.Done()
		c.writeLoop()
	}()
	// readLoop returns only when the connection ends, always with the reason.
	if err := c.readLoop(); !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		c.srv.logf("cassandratest: connection %s: %v", c.nc.RemoteAddr(), err)
	}
	// No more requests: let the writer send what is queued, then hang up.
	// c.out stays open: a schema change event may still be on its way to
	// it (Server.schemaChange sends from a goroutine of its own), and is
	// dropped once the connection is done.
	c.requests.Wait()
	close(c.drained)
	writer.Wait()
	c.close()
}

func (c *conn) writeLoop() {
	bw := bufio.NewWriterSize(c.nc, 64<<10)
	for {
		select {
		case <-c.drained:
			for {
				select {
				case f := <-c.out:
					if _, err := bw.Write(f); err != nil {
						c.close()
						return
					}
				default:
					bw.Flush()
					return
				}
			}
		case f := <-c.out:
			if _, err := bw.Write(f); err != nil {
				c.close()
				return
			}
			if len(c.out) == 0 {
				if err := bw.Flush(); err != nil {
					c.close()
					return
				}
			}
		case <-c.done:
			return
		}
	}
}

// send queues a frame; it is dropped if the connection is gone.
func (c *conn) send(frame []byte) {
	if frame == nil {
		return
	}
	select {
	case c.out <- frame:
	case <-c.done:
	}
}

func (c *conn) readLoop() error {
	br := bufio.NewReaderSize(c.nc, 64<<10)
	hbuf := make([]byte, headerLen)
	for {
		h, err := readHeader(br, hbuf)
		if err != nil {
			return err
		}
		c.srv.stats.requests.Add(1)
		if h.version != protoVersion {
			// Section 2.1: one version per connection. Answer in a version
			// the client can read, so a driver negotiating a version sees
			// a protocol error and tries a lower one.
			v := byte(protoVersion)
			if h.version&0x7f >= 3 && h.version&0x7f <= 5 {
				v = h.version & 0x7f
			}
			f := errProtocol("Invalid or unsupported protocol version (%d); supported versions are (4/v4)", h.version&0x7f).frame(h.stream)
			f[0] = responseBit | v
			c.send(f)
			return fmt.Errorf("protocol version %d refused (this server speaks v4; drivers retry with it)", h.version&0x7f)
		}
		if h.length < 0 || h.length > maxFrameBody {
			c.send(errProtocol("frame body length %d out of range", h.length).frame(h.stream))
			return errors.New("frame too large")
		}
		body := make([]byte, h.length)
		if _, err := io.ReadFull(br, body); err != nil {
			return err
		}
		if h.flags&flagCompress != 0 {
			c.send(errProtocol("compression was not negotiated").frame(h.stream))
			continue
		}
		switch h.opcode {
		case opOptions:
			c.send(supported(h.stream))
		case opStartup:
			c.send(c.startup(h, body))
		case opRegister:
			c.send(c.register(h, body))
		case opQuery, opPrepare, opExecute, opBatch:
			if !c.ready.Load() {
				c.send(c.notReady().frame(h.stream))
				continue
			}
			c.requests.Add(1)
			c.srv.begin(false)
			go func() {
				defer c.requests.Done()
				defer c.srv.end(false)
				c.send(c.request(h, body))
			}()
		case opAuthResponse:
			if !c.authWait.Load() {
				c.send(errProtocol("authentication was not requested").frame(h.stream))
				continue
			}
			c.send(c.authenticate(h, body))
		default:
			c.send(errProtocol("unknown or response opcode 0x%02x in a request", h.opcode).frame(h.stream))
		}
	}
}

func supported(stream int16) []byte {
	w := newFrame(stream, opSupported)
	w.stringMultimap(map[string][]string{
		"CQL_VERSION":       {cqlVersion},
		"COMPRESSION":       {},
		"PROTOCOL_VERSIONS": {"4/v4"},
	}, []string{"COMPRESSION", "CQL_VERSION", "PROTOCOL_VERSIONS"})
	return w.finish()
}

func (c *conn) startup(h header, body []byte) []byte {
	if c.ready.Load() || c.authWait.Load() {
		return errProtocol("STARTUP sent twice").frame(h.stream)
	}
	r := &reader{b: body}
	opts := r.stringMap()
	if r.err != nil {
		return errProtocol("STARTUP: %v", r.err).frame(h.stream)
	}
	if v := opts["CQL_VERSION"]; !strings.HasPrefix(v, "3.") {
		return errProtocol("STARTUP: CQL_VERSION %q is not supported; want 3.x", v).frame(h.stream)
	}
	if comp, ok := opts["COMPRESSION"]; ok {
		return errProtocol("Unknown compression algorithm: %s", comp).frame(h.stream)
	}
	if len(c.srv.opts.Users) > 0 {
		c.authWait.Store(true)
		w := newFrame(h.stream, opAuthenticate)
		w.string(passwordAuthenticator)
		return w.finish()
	}
	c.ready.Store(true)
	return newFrame(h.stream, opReady).finish()
}

// passwordAuthenticator is the authenticator class AUTHENTICATE names:
// Cassandra's, which drivers recognize.
const passwordAuthenticator = "org.apache.cassandra.auth.PasswordAuthenticator"

// authenticate answers an AUTH_RESPONSE (section 4.1.2): its token is
// SASL PLAIN's "authzid\x00user\x00password". A right one gets
// AUTH_SUCCESS and readies the connection; a wrong one the error
// Cassandra gives (Bad credentials, 0x0100), after which the client may
// try again.
func (c *conn) authenticate(h header, body []byte) []byte {
	r := &reader{b: body}
	token := r.bytes()
	if r.err != nil {
		return errProtocol("AUTH_RESPONSE: %v", r.err).frame(h.stream)
	}
	parts := strings.SplitN(string(token), "\x00", 3)
	if len(parts) != 3 {
		return errProtocol("AUTH_RESPONSE: not a SASL PLAIN token").frame(h.stream)
	}
	user, password := parts[1], parts[2]
	if want, ok := c.srv.opts.Users[user]; !ok || subtle.ConstantTimeCompare([]byte(want), []byte(password)) != 1 {
		c.srv.stats.authFailures.Add(1)
		c.srv.logf("cassandratest: connection %s: authentication of user %q refused", c.nc.RemoteAddr(), user)
		return (&cqlError{code: codeBadCredentials, msg: fmt.Sprintf("Provided username %s and/or password are incorrect", user)}).frame(h.stream)
	}
	c.authWait.Store(false)
	c.ready.Store(true)
	w := newFrame(h.stream, opAuthSuccess)
	w.bytes(nil)
	return w.finish()
}

// notReady is the error of a request on a connection not ready for it.
func (c *conn) notReady() *cqlError {
	if c.authWait.Load() {
		return errProtocol("the server requires authentication: answer AUTHENTICATE with AUTH_RESPONSE first")
	}
	return errProtocol("STARTUP must be the first message of a connection")
}

func (c *conn) register(h header, body []byte) []byte {
	if !c.ready.Load() {
		return c.notReady().frame(h.stream)
	}
	r := &reader{b: body}
	for _, ev := range r.stringList() {
		switch ev {
		case "SCHEMA_CHANGE":
			c.events.Store(true)
		case "TOPOLOGY_CHANGE", "STATUS_CHANGE":
		default:
			return errProtocol("REGISTER: unknown event type %q", ev).frame(h.stream)
		}
	}
	if r.err != nil {
		return errProtocol("REGISTER: %v", r.err).frame(h.stream)
	}
	// A one-node in-memory cluster has no topology or status changes;
	// schema changes are pushed (Server.schemaChange).
	return newFrame(h.stream, opReady).finish()
}

func (c *conn) setKeyspace(ks string) {
	c.mu.Lock()
	c.keyspace = ks
	c.mu.Unlock()
}

// currentKeyspace returns the keyspace USE set, or "".
func (c *conn) currentKeyspace() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.keyspace
}
