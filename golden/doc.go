// Package golden is the pure-Go reference for the Arcalís Memcached Set recvFunction:
// it turns one Thrift binary message into the App.Recv image the RTL must write.
//
// The contract is docs/abi.md: [Deserialize] follows its section 5 rule by rule,
// [Result.PutHeader] and [ParseHeader] are its section 6 header line, and [Code]
// is its section 4 table of result codes.
package golden
