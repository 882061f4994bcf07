#include "core/contract/validate.h"

#include <string_view>

#include "core/contract/rules.h"

namespace revline::contract {
namespace {

class Validator {
 public:
  Validator(std::string pointer, std::vector<Problem>& out) : pointer_(std::move(pointer)), out_(out) {}

  template <class T>
  void field(std::string_view name, const T& value, const FieldSpec& spec) {
    check(childPointer(pointer_, name), value, spec);
  }

 private:
  void check(const std::string& p, const std::string& v, const FieldSpec& spec) { checkString(v, spec, p, out_); }
  void check(const std::string& p, const std::int64_t& v, const FieldSpec& spec) {
    checkInteger(v, spec, false, p, out_);
  }
  void check(const std::string& p, const double& v, const FieldSpec& spec) { checkNumber(v, spec, p, out_); }
  void check(const std::string& p, const std::optional<std::int64_t>& v, const FieldSpec& spec) {
    if (v) checkInteger(*v, spec, true, p, out_);
  }
  void check(const std::string& p, const std::optional<std::string>& v, const FieldSpec& spec) {
    if (v && !(spec.blankIsNull && isBlank(*v))) checkString(*v, spec, p, out_);
  }
  template <ContractEnum E>
  void check(const std::string& p, const E& v, const FieldSpec&) {
    if (enumName(v) == "?")  // only a value cast from an out-of-range integer gets here
      out_.push_back(makeProblem(ErrorKind::InvalidEnum, p,
                                 "got enum value " + std::to_string(static_cast<int>(v)) + ", expected one of " +
                                     allowedNames<E>()));
  }
  template <ContractObject T>
  void check(const std::string& p, const T& v, const FieldSpec&) {
    Validator sub(p, out_);
    T::fields(v, sub);
  }
  template <ContractObject T>
  void check(const std::string& p, const std::optional<T>& v, const FieldSpec& spec) {
    if (v) check(p, *v, spec);
  }
  template <ContractObject T>
  void check(const std::string& p, const std::vector<T>& v, const FieldSpec& spec) {
    for (std::size_t i = 0; i < v.size(); ++i) check(childPointer(p, i), v[i], spec);
  }

  std::string pointer_;
  std::vector<Problem>& out_;
};

}  // namespace

std::vector<Problem> validate(const ReviewReport& report) {
  std::vector<Problem> out;
  Validator v("", out);
  ReviewReport::fields(report, v);
  return out;
}

std::vector<Problem> validate(const Finding& finding, const std::string& pointer) {
  std::vector<Problem> out;
  Validator v(pointer, out);
  Finding::fields(finding, v);
  return out;
}

}  // namespace revline::contract
