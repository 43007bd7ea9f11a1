# A base service and a struct in a file of their own, for features.thrift.
namespace go features_base

/* Stamp is included by features.thrift. */
struct Stamp {
  1: required i64 seconds;
  2: optional i32 nanos = 0;
}

service Base {
  void Ping(),
  Stamp Now(1: string zone) (deprecated = "use Clock")
}
