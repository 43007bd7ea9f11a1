// Schema of the Memcached microservice that the Arcalís engine accelerates
// (docs/abi.md). Clients send it as Apache Thrift binary protocol with strict
// headers, over framed or buffered transport; the RxEngine parses the CALL
// (transport framing already removed), the TxEngine writes the REPLY.
//
// `make thrift-gen` turns this file into internal/memcached with thrift
// 0.17.0, the version of the Go library in go.mod.
namespace go memcached

service MemcachedService {
  // Stores value under key, with memcached's flags and expiration time.
  void Set(1: i64 req_id, 2: binary key, 3: binary value, 4: i32 flags, 5: i32 exptime)

  // Returns the value stored under key (field 0 of the result struct).
  binary Get(1: i64 req_id, 2: binary key)
}
