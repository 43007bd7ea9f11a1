// A service for tb/schemarx whose arguments hold required fields, at the
// args level and nested, in structs and in containers' elements: no
// service of idl/ has one, and REQUIRED_MISSING needs them. It also has a
// union, a field id far above the others and every scalar type.
namespace go required

struct Inner {
  1: required i32 a,
  2: optional string b,
  3: required list<i64> c,
}

union Pick {
  1: i64 n,
  2: string s,
  3: Inner inner,
}

struct Outer {
  1: required Inner inner,
  2: list<Inner> inners,
  3: map<string, Inner> by_name,
  4: Pick pick,
  5: double d,
  6: bool flag,
  7: byte b,
  8: i16 s,
  9: set<list<Inner>> sets,
  70: required string far,
}

service RequiredService {
  void Put(1: required Outer outer, 2: required i64 id, 3: set<string> tags),
  oneway void Drop(1: i64 id),
  Outer Get(1: required i64 id, 2: Pick pick),
}
