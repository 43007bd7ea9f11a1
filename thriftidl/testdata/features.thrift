// Every construct of the subset docs/idl.md describes that Apache's
// compiler 0.17.0 also reads (it has no uuid: that is tested apart).
include "features_base.thrift"
cpp_include "<unordered_map>"

namespace go features
namespace * features.all

const i32 MaxItems = 0x40
const double Ratio = 1.5e3;
const list<string> Names = ["a", 'b'; "c"]
const map<string, i32> Weights = {"x": 1, "y": -2}
const bool Enabled = true

enum Colour {
  RED,
  GREEN = 5,
  BLUE (hex = "00f"),
  BLACK = 0x10;
}

const Colour Favourite = Colour.BLUE

typedef i64 UserId (go.type = "int64")
typedef list<UserId> UserIds
typedef map<string, list<set<i16>>> Deep

union Choice {
  1: bool flag
  2: byte small
  3: i8 tiny
  4: double real
}

struct Item {
  1: required UserId owner,
  2: optional string label = "none",
  3: Colour colour = Colour.GREEN,
  4: binary blob,
  5: Deep deep,
  6: map<i32, map<string, list<double>>> nested,
  7: list<list<i32>> grid,
  8: set<string> tags,
  9: Choice choice,
  10: features_base.Stamp stamp,
  11: i16 small = MaxItems,
  12: UserIds followers,
  20: list<Item2> later,
}

struct Item2 {
  1: i32 x
} (final = "true")

exception Failure {
  1: i32 code,
  2: string why
}

service Store extends features_base.Base {
  Item Get(1: UserId /* inline comment */ id) throws (1: Failure fail)
  oneway void Forget(1: UserId id, 2: set<UserId> also);
  map<string, Item> Many(1: UserIds ids, 3: Choice how) throws (5: Failure fail)
}
