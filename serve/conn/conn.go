// Package conn is how requests get from sockets to the simulated model
// and back, written once for the Thrift servers of serve and
// serve/schemasvc: the accept loop, the tracking of open connections and
// their draining at shutdown, one request at a time per connection, the
// wire as Apache's TSimpleServer reads and writes it (frames, unframed
// messages, exceptions), and the goroutine that owns the model, on which
// every connection's requests run one at a time. What a request means is
// the server's.
package conn

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Outcome is what a connection does after a request: write Reply (nil:
// none) and, with Close, end.
type Outcome struct {
	Reply []byte
	Close bool
	// Done, if not nil, is called with the time from the request read to
	// its reply written (to the outcome, if there is no reply).
	Done func(time.Duration)
}

// Handler is what a server does with each connection's requests.
type Handler[R any] struct {
	// Read reads one request. A *Fault is answered as it says and counted
	// with Fault; any other error ends the connection.
	Read  func(r *bufio.Reader) (R, error)
	Fault func()
	// Run runs a request of connection id (numbered from 1 in accept
	// order) and says what to do next; it returns when the reply is known.
	Run func(id int, req R, read time.Time) Outcome
}

// Listener accepts connections and serves each on a goroutine of its own
// until Shutdown.
type Listener struct {
	ln  net.Listener
	log *log.Logger

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closing atomic.Bool
	connWG  sync.WaitGroup
	accepts sync.WaitGroup
}

// Listen listens on addr and serves every connection with h, logging to lg.
func Listen[R any](addr string, lg *log.Logger, h Handler[R]) (*Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	l := &Listener{ln: ln, log: lg, conns: map[net.Conn]struct{}{}}
	l.accepts.Add(1)
	go l.accept(func(c net.Conn, id int) { serve(l, c, id, h) })
	return l, nil
}

// Addr is the address listened on.
func (l *Listener) Addr() net.Addr { return l.ln.Addr() }

// Closing says whether Shutdown has begun.
func (l *Listener) Closing() bool { return l.closing.Load() }

// Shutdown stops accepting and lets every request already read go on to
// its reply, then returns when every connection is closed. A read in
// progress or to come fails at once. If ctx ends first, connections are
// closed without waiting for their replies.
func (l *Listener) Shutdown(ctx context.Context) {
	l.closing.Store(true)
	l.ln.Close()
	l.accepts.Wait()
	l.mu.Lock()
	for c := range l.conns {
		c.SetReadDeadline(time.Now())
	}
	l.mu.Unlock()
	idle := make(chan struct{})
	go func() { l.connWG.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-ctx.Done():
		l.mu.Lock()
		for c := range l.conns {
			c.Close()
		}
		l.mu.Unlock()
		<-idle
	}
}

func (l *Listener) accept(serveConn func(net.Conn, int)) {
	defer l.accepts.Done()
	id := 0
	for {
		c, err := l.ln.Accept()
		if err != nil {
			if !l.closing.Load() {
				l.log.Printf("accept: %v; no more connections are taken", err)
			}
			return
		}
		id++
		l.mu.Lock()
		l.conns[c] = struct{}{}
		l.connWG.Add(1)
		l.mu.Unlock()
		go serveConn(c, id)
	}
}

// serve reads requests from one connection, one at a time: each is
// answered before the next is read, so replies keep the requests' order.
func serve[R any](l *Listener, c net.Conn, id int, h Handler[R]) {
	defer l.connWG.Done()
	defer func() {
		l.mu.Lock()
		delete(l.conns, c)
		l.mu.Unlock()
		c.Close()
	}()
	r := bufio.NewReaderSize(c, 64<<10)
	for {
		req, err := h.Read(r)
		read := time.Now()
		if err != nil {
			if l.closing.Load() || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				return
			}
			var f *Fault
			if !errors.As(err, &f) {
				l.log.Printf("connection %d (%s): read: %v", id, c.RemoteAddr(), err)
				return
			}
			h.Fault()
			l.log.Printf("connection %d (%s): %v%s", id, c.RemoteAddr(), f.Err, f.Action())
			if f.Reply != nil {
				if _, err := c.Write(f.Reply); err != nil {
					return
				}
			}
			if f.Close {
				return
			}
			continue
		}
		o := h.Run(id, req, read)
		if o.Reply != nil {
			if _, err := c.Write(o.Reply); err != nil {
				l.log.Printf("connection %d (%s): writing the reply: %v", id, c.RemoteAddr(), err)
				return
			}
		}
		if o.Done != nil {
			o.Done(time.Since(read))
		}
		if o.Close {
			return
		}
	}
}
