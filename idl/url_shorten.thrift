// UrlShortenService of the DeathStarBench social network: shortens the URLs
// of a post and expands shortened ones. carrier is the tracing context.
include "social_network_common.thrift"

namespace go url_shorten

service UrlShortenService {
  list<social_network_common.Url> ComposeUrls(
      1: i64 req_id,
      2: list<string> urls,
      3: map<string, string> carrier)
    throws (1: social_network_common.ServiceException se)

  list<string> GetExtendedUrls(
      1: i64 req_id,
      2: list<string> shortened_urls,
      3: map<string, string> carrier)
    throws (1: social_network_common.ServiceException se)
}
