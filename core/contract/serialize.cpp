#include "core/contract/serialize.h"

#include <string_view>

namespace revline::contract {
namespace {

class Writer {
 public:
  explicit Writer(json& object) : object_(object) {}

  template <class T>
  void field(std::string_view name, const T& value, const FieldSpec&) {
    object_[std::string(name)] = write(value);
  }

 private:
  static json write(const std::string& v) { return v; }
  static json write(std::int64_t v) { return v; }
  static json write(double v) { return v; }
  template <ContractEnum E>
  static json write(E v) { return std::string(enumName(v)); }
  template <ContractObject T>
  static json write(const T& v) {
    json out = json::object();
    Writer w(out);
    T::fields(v, w);
    return out;
  }
  template <class T>
  static json write(const std::optional<T>& v) { return v ? write(*v) : json(nullptr); }
  template <class T>
  static json write(const std::vector<T>& v) {
    json out = json::array();
    for (const auto& item : v) out.push_back(write(item));
    return out;
  }

  json& object_;
};

template <ContractObject T>
json objectToJson(const T& value) {
  json out = json::object();
  Writer w(out);
  T::fields(value, w);
  return out;
}

}  // namespace

json toJson(const ReviewReport& report) { return objectToJson(report); }
json toJson(const Finding& finding) { return objectToJson(finding); }
json toJson(const Edit& edit) { return objectToJson(edit); }
void to_json(json& j, const ReviewReport& report) { j = toJson(report); }
void to_json(json& j, const Finding& finding) { j = toJson(finding); }
void to_json(json& j, const Edit& edit) { j = toJson(edit); }

}  // namespace revline::contract
