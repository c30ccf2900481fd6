// util/natural_order.h: ordering text the way a reader expects numbers in it to sort.
#pragma once

#include <string_view>

namespace storh {

// "Natural" order: runs of decimal digits compare by value, everything else byte by
// byte, so "q.tx[transactions=50]" sorts before "q.tx[transactions=200]" and "n=9"
// before "n=10". Equal values with different leading zeros ("7" and "007") order the
// shorter run first, so the order is total. Strict weak ordering; use it as a sort
// comparator.
bool natural_less(std::string_view a, std::string_view b);

}  // namespace storh
