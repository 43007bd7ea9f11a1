// The wire types, kinds and limits the services of idl/ lack, for
// tb/schematx: BOOL, BYTE, I16, DOUBLE, sets, unions, optional and
// required fields, an exception of its own, results nested past the
// respFunction's 8 levels (DEPTH_EXCEEDED) and UUIDs (BAD_TYPE).
typedef list<list<list<list<list<list<list<i32>>>>>>> L7

struct S1 { 1: S2 s }
struct S2 { 1: S3 s }
struct S3 { 1: S4 s }
struct S4 { 1: S5 s }
struct S5 { 1: S6 s }
struct S6 { 1: S7 s }
struct S7 { 1: S8 s }
struct S8 { 1: i32 x }

union U { 1: i32 a, 2: string b, 3: bool c }

struct All {
  1: bool b
  2: byte y
  3: i16 h
  4: double d
  5: set<i16> hs
  6: map<byte, double> m
  7: optional list<bool> ol
  8: U u
  9: required string rs
  10: binary bin
  11: optional map<string, list<U>> deep
}

struct WithU { 1: uuid u }

exception Oops { 1: i16 code, 2: string why }

service AllTypesService {
  All Get() throws (1: Oops e)
  list<L7> Deep8()
  L7 Deep7()
  S1 Chain()
  U Un()
  uuid Uid()
  WithU Wu()
  void Nothing() throws (1: Oops e, 2: Oops f)
  oneway void Fire(1: i32 x)
}
