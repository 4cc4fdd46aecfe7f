// AttrValue: the value of one node attribute, shaped like TensorFlow's
// AttrValue message (one scalar field or a list, chosen by `kind`) so that
// graph files convert field by field. Also the typed getters kernels and
// shape functions read attrs with.
#ifndef WEFT_OPS_ATTR_VALUE_H_
#define WEFT_OPS_ATTR_VALUE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"

namespace weft {

struct NameAttrList;

struct AttrValue {
  enum class Kind : uint8_t {
    kUnset,        // no value given
    kString,       // s
    kInt,          // i
    kFloat,        // f
    kBool,         // b
    kType,         // type
    kShape,        // shape
    kTensor,       // tensor
    kList,         // list: any one of its vectors (possibly all empty)
    kFunc,         // func
    kPlaceholder,  // placeholder (function bodies only)
  };

  struct ListValue {
    std::vector<std::string> s;
    std::vector<int64_t> i;
    std::vector<float> f;
    std::vector<bool> b;
    std::vector<DataType> type;
    std::vector<PartialTensorShape> shape;
    std::vector<Tensor> tensor;
    std::vector<NameAttrList> func;

    // Number of elements in whichever vector is populated.
    size_t size() const;
  };

  // A list's vectors, on the heap and made on the first write: most attrs
  // are scalars, and eight empty vectors held inline made every AttrValue
  // 400 bytes, which every copy of a graph wrote and freed. Reads of an
  // unmade list see an empty one. Copies are deep, as ListValue's are.
  class ListBox {
   public:
    ListBox() = default;
    ListBox(const ListBox& other);
    ListBox(ListBox&& other) noexcept = default;
    ListBox& operator=(const ListBox& other);
    ListBox& operator=(ListBox&& other) noexcept = default;
    ~ListBox();

    const ListValue& operator*() const { return list_ ? *list_ : Empty(); }
    const ListValue* operator->() const { return &**this; }
    ListValue& operator*();
    ListValue* operator->() { return &**this; }

   private:
    static const ListValue& Empty();
    std::unique_ptr<ListValue> list_;
  };

  Kind kind = Kind::kUnset;
  std::string s;  // also holds the placeholder name
  int64_t i = 0;
  float f = 0;
  bool b = false;
  DataType type = DT_INVALID;
  PartialTensorShape shape;
  Tensor tensor;
  ListBox list;
  std::shared_ptr<const NameAttrList> func;

  static AttrValue String(std::string v);
  static AttrValue Int(int64_t v);
  static AttrValue Float(float v);
  static AttrValue Bool(bool v);
  static AttrValue Type(DataType v);
  static AttrValue Shape(PartialTensorShape v);
  static AttrValue TensorValue(Tensor v);
  static AttrValue Func(NameAttrList v);
  static AttrValue Placeholder(std::string name);
  static AttrValue StringList(std::vector<std::string> v);
  static AttrValue IntList(std::vector<int64_t> v);
  static AttrValue FloatList(std::vector<float> v);
  static AttrValue BoolList(std::vector<bool> v);
  static AttrValue TypeList(std::vector<DataType> v);
  static AttrValue ShapeList(std::vector<PartialTensorShape> v);
  static AttrValue EmptyList();
};

using AttrMap = std::map<std::string, AttrValue, std::less<>>;

// A function reference with its attrs ("func" attrs, function call nodes).
struct NameAttrList {
  std::string name;
  AttrMap attr;
};

// Value equality. Tensors compare by dtype, shape and bytes; lists compare the
// populated vector.
bool operator==(const AttrValue& a, const AttrValue& b);
inline bool operator!=(const AttrValue& a, const AttrValue& b) {
  return !(a == b);
}

// TensorFlow-style short text: 3, 1.5, true, "SAME", float, [2,?],
// [1, 2, 3], [float, int32], Tensor<float [2]>, fn_name.
std::string SummarizeAttrValue(const AttrValue& value);

// The attr-type name a value carries: "string", "int", "list(int)", ...;
// an empty list reports "list(?)".
std::string AttrValueTypeName(const AttrValue& value);

// Typed attr lookup. NotFound names the attr when absent; InvalidArgument
// names the attr, the wanted type and the value's type on a mismatch.
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   std::string* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   int64_t* value);
// Also checks the value fits in int32.
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   int32_t* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name, float* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name, bool* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   DataType* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   PartialTensorShape* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name, Tensor* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   NameAttrList* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   std::vector<std::string>* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   std::vector<int64_t>* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   std::vector<int32_t>* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   std::vector<float>* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   std::vector<bool>* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   std::vector<DataType>* value);
Status GetNodeAttr(const AttrMap& attrs, absl::string_view name,
                   std::vector<PartialTensorShape>* value);

}  // namespace weft

#endif  // WEFT_OPS_ATTR_VALUE_H_
