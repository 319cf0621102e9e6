package cassandratest

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/tweetindex/tweetindex/schemas"
)

// rawConn speaks the v4 frame format directly, to check the server against
// the spec where the driver would hide the details.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, srv *Server) *rawConn {
	t.Helper()
	nc, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func (c *rawConn) send(version byte, stream int16, op byte, body []byte) {
	c.t.Helper()
	h := []byte{version, 0, 0, 0, op, 0, 0, 0, 0}
	binary.BigEndian.PutUint16(h[2:], uint16(stream))
	binary.BigEndian.PutUint32(h[5:], uint32(len(body)))
	if _, err := c.nc.Write(append(h, body...)); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawConn) recv() (header, *reader) {
	c.t.Helper()
	h, err := readHeader(c.br, make([]byte, headerLen))
	if err != nil {
		c.t.Fatal(err)
	}
	body := make([]byte, h.length)
	if _, err := io.ReadFull(c.br, body); err != nil {
		c.t.Fatal(err)
	}
	return h, &reader{b: body}
}

func stringMapBody(m map[string]string) []byte {
	w := &writer{}
	w.short(uint16(len(m)))
	for k, v := range m {
		w.string(k)
		w.string(v)
	}
	return w.b
}

func queryBody(text string) []byte {
	w := &writer{}
	w.int(int32(len(text)))
	w.b = append(w.b, text...)
	w.short(1) // consistency ONE
	w.byte(0)  // no flags
	return w.b
}

func TestProtocolHandshakeAndEvents(t *testing.T) {
	srv, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	c := dialRaw(t, srv)
	// A request before STARTUP is a protocol error.
	c.send(protoVersion, 1, opQuery, queryBody("SELECT key FROM system.local"))
	if h, r := c.recv(); h.opcode != opError || r.int() != codeProtocol || h.stream != 1 {
		t.Fatalf("query before STARTUP: opcode %d", h.opcode)
	}
	c.send(protoVersion, 2, opOptions, nil)
	h, r := c.recv()
	if h.opcode != opSupported || h.version != responseBit|protoVersion || h.stream != 2 {
		t.Fatalf("OPTIONS answered opcode %d version %x", h.opcode, h.version)
	}
	n := int(r.short())
	opts := map[string][]string{}
	for i := 0; i < n; i++ {
		k := r.string()
		opts[k] = r.stringList()
	}
	if len(opts["CQL_VERSION"]) != 1 || opts["CQL_VERSION"][0] != cqlVersion {
		t.Errorf("SUPPORTED = %v", opts)
	}
	c.send(protoVersion, 3, opStartup, stringMapBody(map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": "lz4"}))
	if h, r := c.recv(); h.opcode != opError || r.int() != codeProtocol {
		t.Errorf("STARTUP with compression: opcode %d, want a protocol error", h.opcode)
	}
	c.send(protoVersion, 4, opStartup, stringMapBody(map[string]string{"CQL_VERSION": "3.0.0"}))
	if h, _ := c.recv(); h.opcode != opReady {
		t.Fatalf("STARTUP answered opcode %d", h.opcode)
	}
	w := &writer{}
	w.stringList([]string{"SCHEMA_CHANGE", "STATUS_CHANGE"})
	c.send(protoVersion, 5, opRegister, w.b)
	if h, _ := c.recv(); h.opcode != opReady {
		t.Fatalf("REGISTER answered opcode %d", h.opcode)
	}

	// A schema change on another connection: this one gets an EVENT.
	other := dialRaw(t, srv)
	other.send(protoVersion, 0, opStartup, stringMapBody(map[string]string{"CQL_VERSION": "3.0.0"}))
	other.recv()
	other.send(protoVersion, 9, opQuery, queryBody(schemas.CQLSchema("evks", schemas.ReplicationOptions{})[0]))
	h, r = other.recv()
	if h.opcode != opResult || r.int() != resultSchemaChange || r.string() != "CREATED" || r.string() != "KEYSPACE" || r.string() != "evks" {
		t.Fatalf("CREATE KEYSPACE answered opcode %d", h.opcode)
	}
	h, r = c.recv()
	if h.opcode != opEvent || h.stream != -1 || r.string() != "SCHEMA_CHANGE" || r.string() != "CREATED" || r.string() != "KEYSPACE" || r.string() != "evks" {
		t.Fatalf("registered connection got opcode %d stream %d, want a SCHEMA_CHANGE event", h.opcode, h.stream)
	}
	// Again: IF NOT EXISTS on an existing keyspace is a Void result.
	other.send(protoVersion, 10, opQuery, queryBody(schemas.CQLSchema("evks", schemas.ReplicationOptions{})[0]))
	if h, r := other.recv(); h.opcode != opResult || r.int() != resultVoid {
		t.Errorf("second CREATE KEYSPACE answered opcode %d", h.opcode)
	}
}

func TestProtocolRejectsOtherVersions(t *testing.T) {
	srv, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, v := range []byte{3, 5} {
		c := dialRaw(t, srv)
		c.send(v, 0, opOptions, nil)
		h, r := c.recv()
		if h.opcode != opError || h.version != responseBit|v || r.int() != codeProtocol {
			t.Errorf("v%d OPTIONS answered opcode %d version %x, want a protocol error in v%d", v, h.opcode, h.version, v)
		}
		if _, err := c.br.ReadByte(); err != io.EOF {
			t.Errorf("v%d: connection still open after the version error (%v)", v, err)
		}
	}
}
