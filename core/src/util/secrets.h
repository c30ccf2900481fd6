// util/secrets.h: keeping passwords out of everything the host writes or prints.
//
// A connection string may carry a password: in a URI's user info
// (postgresql://user:pw@host/db), as a URI query parameter (?password=pw), or as a libpq
// keyword/value pair (host=/tmp password=pw, password='a b'). Every text the host
// shows or stores (result files, reports, history, messages) passes through
// mask_secrets at the boundary where it leaves the process; what a plugin is given to
// connect with keeps the password.
#pragma once

#include <string>
#include <string_view>

namespace storh {

// `text` with every password found replaced by "***": the user-info password of each
// scheme://user:password@ it contains, and the value of each password= parameter (in
// a URI query, up to '&'; in a keyword/value string, one word or one quoted value).
// Text without a password comes back unchanged.
std::string mask_secrets(std::string_view text);

// Whether `text` holds a password mask_secrets would hide.
bool holds_secret(std::string_view text);

// Whether `location` is a libpq keyword/value connection string ("host=/run/pg
// dbname=h"): it starts with a libpq keyword followed by '='.
bool is_keyword_connection_string(std::string_view location);

}  // namespace storh
