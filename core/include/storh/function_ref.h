// storh/function_ref.h: a non-owning reference to a callable, so a step or a callback
// crosses a call without an allocation (cheaper than std::function, which may
// allocate). Only valid during the call it is passed to: the referenced callable must
// outlive the FunctionRef.
//
// ABI: RunContext's virtuals take it by value, so its layout (an object pointer, then
// a function pointer) is part of the plugin ABI and never changes.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace storh {
namespace detail {

template <typename Signature>
class FunctionRef;

template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef> &&
                                                    std::is_invocable_r_v<R, F&, Args...>>>
  FunctionRef(F&& f) noexcept  // NOLINT(google-explicit-constructor): used like std::function
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, Args... args) -> R {
          return (*static_cast<std::add_pointer_t<std::remove_reference_t<F>>>(object))(
              std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace detail

template <typename Signature>
using FunctionRef = detail::FunctionRef<Signature>;

}  // namespace storh
