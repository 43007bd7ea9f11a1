// UniqueIdService of the DeathStarBench social network: hands out post ids.
// carrier is the tracing context.
include "social_network_common.thrift"

namespace go unique_id

service UniqueIdService {
  i64 ComposeUniqueId(
      1: i64 req_id,
      2: social_network_common.PostType post_type,
      3: map<string, string> carrier)
    throws (1: social_network_common.ServiceException se)
}
