// Types shared by the DeathStarBench social-network services the Arcalís
// paper evaluates (docs/idl.md). Every service in idl/ includes this file;
// their methods all declare `throws (1: ServiceException se)`.
namespace go social_network

// The kind of a post; i32 on the wire.
enum PostType {
  POST = 0,
  REPOST = 1,
  REPLY = 2,
  DM = 3
}

// Why a handler failed; i32 on the wire.
enum ErrorCode {
  SE_CONNPOOL_TIMEOUT = 0,
  SE_THRIFT_CONN_ERROR = 1,
  SE_UNAUTHORIZED = 2,
  SE_MEMCACHED_ERROR = 3,
  SE_MONGODB_ERROR = 4,
  SE_REDIS_ERROR = 5,
  SE_THRIFT_HANDLER_ERROR = 6,
  SE_RABBITMQ_CONN_ERROR = 7
}

struct Creator {
  1: i64 user_id,
  2: string username
}

struct Media {
  1: i64 media_id,
  2: string media_type
}

struct Url {
  1: string shortened_url,
  2: string expanded_url
}

struct UserMention {
  1: i64 user_id,
  2: string username
}

struct Post {
  1: i64 post_id,
  2: Creator creator,
  3: i64 req_id,
  4: string text,
  5: list<UserMention> user_mentions,
  6: list<Media> media,
  7: list<Url> urls,
  8: i64 timestamp,
  9: PostType post_type
}

exception ServiceException {
  1: ErrorCode errorCode,
  2: string message
}
