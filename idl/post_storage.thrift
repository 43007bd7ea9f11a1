// PostStorageService of the DeathStarBench social network: stores posts and
// reads them back by id. carrier is the tracing context.
include "social_network_common.thrift"

namespace go post_storage

service PostStorageService {
  void StorePost(
      1: i64 req_id,
      2: social_network_common.Post post,
      3: map<string, string> carrier)
    throws (1: social_network_common.ServiceException se)

  social_network_common.Post ReadPost(
      1: i64 req_id,
      2: i64 post_id,
      3: map<string, string> carrier)
    throws (1: social_network_common.ServiceException se)

  list<social_network_common.Post> ReadPosts(
      1: i64 req_id,
      2: list<i64> post_ids,
      3: map<string, string> carrier)
    throws (1: social_network_common.ServiceException se)
}
