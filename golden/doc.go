// Package golden is the pure-Go reference for the Arcalís Memcached Set recvFunction:
// it turns one Thrift message into the App.Recv image the RTL must write (docs/abi.md).
package golden
