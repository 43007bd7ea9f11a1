// Package golden is the pure-Go reference of the Arcalís Memcached engine:
// the Set recvFunction, which turns one Thrift message into the App.Recv
// image the RTL must write, and the replies the TxEngine is to serialize
// from an App.Resp image (docs/abi.md sections 6, 8 and 11).
package golden
