package serve

import (
	"fmt"
	"net"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/memcached"
)

// Apache is Apache Thrift's own Go server (TSimpleServer with the generated
// processor) over a Store: the baseline that `make serve-load` measures this
// server against, and the behaviour it keeps for malformed input.
type Apache struct {
	srv  *thrift.TSimpleServer
	addr net.Addr
	done chan error
}

// StartApache serves store with Apache's server on addr with the transport
// (Framed, or Buffered: TBufferedTransport) and TBinaryProtocol.
func StartApache(addr, transport string, store *Store, logf func(string)) (*Apache, error) {
	conf := &thrift.TConfiguration{}
	var tf thrift.TTransportFactory
	switch transport {
	case Framed:
		tf = thrift.NewTFramedTransportFactoryConf(thrift.NewTTransportFactory(), conf)
	case Buffered:
		tf = thrift.NewTBufferedTransportFactory(8192)
	default:
		return nil, fmt.Errorf("apache: transport %q: want %s or %s", transport, Framed, Buffered)
	}
	sock, err := thrift.NewTServerSocket(addr)
	if err != nil {
		return nil, err
	}
	if err := sock.Listen(); err != nil {
		return nil, err
	}
	srv := thrift.NewTSimpleServer4(memcached.NewMemcachedServiceProcessor(Handler{store}), sock, tf, thrift.NewTBinaryProtocolFactoryConf(conf))
	if logf != nil {
		srv.SetLogger(logf)
	}
	a := &Apache{srv: srv, addr: sock.Addr(), done: make(chan error, 1)}
	go func() { a.done <- srv.Serve() }()
	return a, nil
}

// Addr is the address Apache's server listens on.
func (a *Apache) Addr() net.Addr { return a.addr }

// Stop stops Apache's server and waits for its connections to end.
func (a *Apache) Stop() error {
	err := a.srv.Stop()
	if serr := <-a.done; err == nil {
		err = serr
	}
	return err
}
