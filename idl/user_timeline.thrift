// UserTimelineService of the DeathStarBench social network: a user's posts,
// newest first. carrier is the tracing context.
include "social_network_common.thrift"

namespace go user_timeline

service UserTimelineService {
  void WriteUserTimeline(
      1: i64 req_id,
      2: i64 post_id,
      3: i64 user_id,
      4: i64 timestamp,
      5: map<string, string> carrier)
    throws (1: social_network_common.ServiceException se)

  list<social_network_common.Post> ReadUserTimeline(
      1: i64 req_id,
      2: i64 user_id,
      3: i32 start,
      4: i32 stop,
      5: map<string, string> carrier)
    throws (1: social_network_common.ServiceException se)
}
