// The TensorList kernels (kernels/cpu/tensor_list_ops.cc) one op at a time:
// what each builds, copy-on-write (a list another tensor still holds never
// changes; one the kernel may take over changes in place), and the errors,
// which name the node. The values these ops move are checked against
// TensorFlow in graphs by tests/models/control_flow_test.cc (tensor_lists,
// written by gen_control_flow.py) and the Keras RNN models.
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor_list.h"
#include "core/variant.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace cpu_tensor_list_test {

using test::AsScalar;
using test::AsTensor;
using test::ExpectTensorEqual;
using test::Inputs;
using test::OpRunner;
using ::testing::HasSubstr;

AttrMap Dtype(DataType dt = DT_FLOAT) {
  AttrMap attrs;
  attrs["element_dtype"] = AttrValue::Type(dt);
  return attrs;
}

const TensorList& ListOf(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DT_VARIANT);
  EXPECT_EQ(t.dims(), 0);
  const TensorList* list = VariantElements(t)[0].get<TensorList>();
  EXPECT_NE(list, nullptr);
  static const TensorList empty;
  return list ? *list : empty;
}

Tensor Run1(const std::string& op, std::vector<Tensor> inputs,
            AttrMap attrs = {}, bool forwardable = true) {
  OpRunner runner(op, std::move(attrs));
  runner.set_forwardable(forwardable);
  auto out = runner.Run(std::move(inputs));
  EXPECT_TRUE(out.ok()) << op << ": " << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

Status RunError(const std::string& op, std::vector<Tensor> inputs,
                AttrMap attrs = {}) {
  OpRunner runner(op, std::move(attrs));
  auto out = runner.Run(std::move(inputs));
  return out.ok() ? Status() : out.status();
}

// [[0,1],[2,3],[4,5]] as a list of three [2] items.
Tensor ThreeRows() {
  return Run1("TensorListFromTensor",
              {AsTensor<float>({0, 1, 2, 3, 4, 5}, {3, 2}),
               AsTensor<int32_t>({-1}, {1})});
}

Tensor Stack(const Tensor& list, std::vector<int32_t> shape = {-1},
             DataType dt = DT_FLOAT) {
  Tensor s =
      shape.size() == 1 && shape[0] == -1
          ? AsScalar<int32_t>(-1)
          : AsTensor<int32_t>(shape, {static_cast<int64_t>(shape.size())});
  return Run1("TensorListStack", {list, s}, Dtype(dt));
}

TEST(TensorListTest, FromTensorStackRoundTrip) {
  Tensor list = ThreeRows();
  const TensorList& l = ListOf(list);
  EXPECT_EQ(l.element_dtype, DT_FLOAT);
  EXPECT_EQ(l.element_shape, PartialTensorShape({-1}));
  ASSERT_EQ(l.tensors.size(), 3u);
  ExpectTensorEqual(l.tensors[1], AsTensor<float>({2, 3}, {2}));
  ExpectTensorEqual(Stack(list), AsTensor<float>({0, 1, 2, 3, 4, 5}, {3, 2}));
  ExpectTensorEqual(Run1("TensorListLength", {list}), AsScalar<int32_t>(3));
  AttrMap int64_shape;
  int64_shape["shape_type"] = AttrValue::Type(DT_INT64);
  ExpectTensorEqual(Run1("TensorListElementShape", {list}, int64_shape),
                    AsTensor<int64_t>({-1}, {1}));
  EXPECT_EQ(list.SummarizeValue(3), "[TensorList<float [?], 3 items>]");
}

TEST(TensorListTest, ElementShapeOfUnknownRankIsTheScalarMinusOne) {
  Tensor list = Run1("EmptyTensorList",
                     {AsScalar<int32_t>(-1), AsScalar<int32_t>(-1)}, Dtype());
  AttrMap attrs;
  attrs["shape_type"] = AttrValue::Type(DT_INT32);
  ExpectTensorEqual(Run1("TensorListElementShape", {list}, attrs),
                    AsScalar<int32_t>(-1));
}

TEST(TensorListTest, UnsetItemsReadAsZeros) {
  Tensor list = Run1("TensorListReserve",
                     {AsScalar<int32_t>(-1), AsScalar<int32_t>(3)}, Dtype());
  list = Run1("TensorListSetItem",
              {list, AsScalar<int32_t>(1), AsTensor<float>({7, 8}, {2})});
  // The set item gives the shape of the others.
  ExpectTensorEqual(Stack(list), AsTensor<float>({0, 0, 7, 8, 0, 0}, {3, 2}));
  ExpectTensorEqual(
      Run1("TensorListGetItem",
           {list, AsScalar<int32_t>(2), AsScalar<int32_t>(-1)}, Dtype()),
      AsTensor<float>({0, 0}, {2}));
  // With no item set, the element_shape input must say it.
  Tensor unset = Run1("TensorListReserve",
                      {AsScalar<int32_t>(-1), AsScalar<int32_t>(2)}, Dtype());
  ExpectTensorEqual(Stack(unset, {1, 2}),
                    AsTensor<float>({0, 0, 0, 0}, {2, 1, 2}));
  Status s =
      RunError("TensorListGetItem",
               {unset, AsScalar<int32_t>(0), AsScalar<int32_t>(-1)}, Dtype());
  EXPECT_THAT(s.message(), HasSubstr("item 0 was never set and the element "
                                     "shape is not fully defined"));
}

TEST(TensorListTest, SetItemNeverChangesAListAnotherTensorHolds) {
  Tensor list = ThreeRows();
  Tensor changed = Run1("TensorListSetItem", {list, AsScalar<int32_t>(0),
                                              AsTensor<float>({9, 9}, {2})});
  ExpectTensorEqual(Stack(list), AsTensor<float>({0, 1, 2, 3, 4, 5}, {3, 2}));
  ExpectTensorEqual(Stack(changed),
                    AsTensor<float>({9, 9, 2, 3, 4, 5}, {3, 2}));
  EXPECT_NE(&ListOf(list), &ListOf(changed));
}

TEST(TensorListTest, SetItemTakesOverAListItAloneHolds) {
  Tensor list = ThreeRows();
  const TensorList* before = &ListOf(list);
  OpRunner runner("TensorListSetItem");
  auto out = runner.Run(Inputs(std::move(list), AsScalar<int32_t>(2),
                               AsTensor<float>({9, 9}, {2})));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(&ListOf((*out)[0]), before);  // the very list, changed in place
  ExpectTensorEqual(Stack((*out)[0]),
                    AsTensor<float>({0, 1, 2, 3, 9, 9}, {3, 2}));
  // Not forwardable: a copy even though no one else holds it.
  Tensor again = (*out)[0];
  out->clear();
  const TensorList* held = &ListOf(again);
  runner.set_forwardable(false);
  auto copied = runner.Run(Inputs(std::move(again), AsScalar<int32_t>(0),
                                  AsTensor<float>({5, 5}, {2})));
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_NE(&ListOf((*copied)[0]), held);
}

TEST(TensorListTest, SetItemResizes) {
  AttrMap attrs;
  attrs["resize_if_index_out_of_bounds"] = AttrValue::Bool(true);
  Tensor list = Run1(
      "TensorListSetItem",
      {ThreeRows(), AsScalar<int32_t>(4), AsTensor<float>({9, 8}, {2})}, attrs);
  ExpectTensorEqual(Stack(list),
                    AsTensor<float>({0, 1, 2, 3, 4, 5, 0, 0, 9, 8}, {5, 2}));
}

TEST(TensorListTest, PushBackPopBackResize) {
  Tensor list = Run1("EmptyTensorList",
                     {AsTensor<int32_t>({2}, {1}), AsScalar<int32_t>(2)},
                     Dtype(DT_INT32));
  list = Run1("TensorListPushBack", {list, AsTensor<int32_t>({1, 2}, {2})});
  list = Run1("TensorListPushBack", {list, AsTensor<int32_t>({3, 4}, {2})});
  EXPECT_THAT(
      RunError("TensorListPushBack", {list, AsTensor<int32_t>({5, 6}, {2})})
          .message(),
      HasSubstr("cannot push onto a full list: it has 2 items and "
                "max_num_elements 2"));
  OpRunner pop("TensorListPopBack", Dtype(DT_INT32));
  auto popped = pop.Run({list, AsScalar<int32_t>(-1)});
  ASSERT_TRUE(popped.ok()) << popped.status();
  ExpectTensorEqual((*popped)[1], AsTensor<int32_t>({3, 4}, {2}));
  ExpectTensorEqual(Run1("TensorListLength", {(*popped)[0]}),
                    AsScalar<int32_t>(1));
  ExpectTensorEqual(Run1("TensorListLength", {list}), AsScalar<int32_t>(2));
  Tensor grown = Run1("TensorListResize", {list, AsScalar<int32_t>(4)});
  ExpectTensorEqual(Stack(grown, {-1}, DT_INT32),
                    AsTensor<int32_t>({1, 2, 3, 4, 0, 0, 0, 0}, {4, 2}));
  Tensor shrunk = Run1("TensorListResize", {grown, AsScalar<int32_t>(1)});
  ExpectTensorEqual(Stack(shrunk, {-1}, DT_INT32),
                    AsTensor<int32_t>({1, 2}, {1, 2}));
  Tensor empty = Run1("TensorListResize", {grown, AsScalar<int32_t>(0)});
  EXPECT_THAT(RunError("TensorListPopBack", {empty, AsScalar<int32_t>(-1)},
                       Dtype(DT_INT32))
                  .message(),
              HasSubstr("cannot pop from an empty list"));
}

TEST(TensorListTest, SplitConcat) {
  Tensor list =
      Run1("TensorListSplit", {AsTensor<float>({0, 1, 2, 3, 4, 5}, {3, 2}),
                               AsTensor<int32_t>({-1, 2}, {2}),
                               AsTensor<int64_t>({1, 0, 2}, {3})});
  const TensorList& l = ListOf(list);
  ASSERT_EQ(l.tensors.size(), 3u);
  EXPECT_EQ(l.tensors[1].shape(), TensorShape({0, 2}));
  OpRunner concat("TensorListConcatV2", Dtype());
  auto out =
      concat.Run({list, AsScalar<int32_t>(-1), AsTensor<int64_t>({}, {0})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({0, 1, 2, 3, 4, 5}, {3, 2}));
  ExpectTensorEqual((*out)[1], AsTensor<int64_t>({1, 0, 2}, {3}));
  EXPECT_THAT(RunError("TensorListSplit",
                       {AsTensor<float>({0, 1, 2, 3, 4, 5}, {3, 2}),
                        AsScalar<int32_t>(-1), AsTensor<int64_t>({1, 1}, {2})})
                  .message(),
              HasSubstr("sum to 2 but the tensor has 3 rows"));
}

TEST(TensorListTest, ConcatOfUnsetItemsUsesLeadingDims) {
  Tensor list =
      Run1("TensorListReserve",
           {AsTensor<int32_t>({-1, 2}, {2}), AsScalar<int32_t>(3)}, Dtype());
  list = Run1("TensorListSetItem", {list, AsScalar<int32_t>(1),
                                    AsTensor<float>({7, 8, 9, 10}, {2, 2})});
  OpRunner concat("TensorListConcatV2", Dtype());
  auto out = concat.Run(
      {list, AsScalar<int32_t>(-1), AsTensor<int64_t>({1, 5, 3}, {3})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[1], AsTensor<int64_t>({1, 2, 3}, {3}));
  EXPECT_EQ((*out)[0].shape(), TensorShape({6, 2}));
  auto missing =
      concat.Run({list, AsScalar<int32_t>(-1), AsTensor<int64_t>({}, {0})});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(),
              HasSubstr("item 0 was never set and its length is not known"));
}

TEST(TensorListTest, GatherScatter) {
  Tensor list = Run1("TensorListScatterV2",
                     {AsTensor<float>({0, 1, 2, 3, 4, 5}, {3, 2}),
                      AsTensor<int32_t>({4, 0, 2}, {3}),
                      AsTensor<int32_t>({-1}, {1}), AsScalar<int32_t>(-1)});
  ExpectTensorEqual(Run1("TensorListLength", {list}), AsScalar<int32_t>(5));
  ExpectTensorEqual(
      Run1("TensorListGather",
           {list, AsTensor<int32_t>({0, 4, 1}, {3}), AsScalar<int32_t>(-1)},
           Dtype()),
      AsTensor<float>({2, 3, 0, 1, 0, 0}, {3, 2}));
  Tensor more = Run1("TensorListScatterIntoExistingList",
                     {list, AsTensor<float>({9, 9, 8, 8}, {2, 2}),
                      AsTensor<int32_t>({1, 6}, {2})});
  ExpectTensorEqual(
      Stack(more),
      AsTensor<float>({2, 3, 9, 9, 4, 5, 0, 0, 0, 1, 0, 0, 8, 8}, {7, 2}));
  EXPECT_THAT(RunError("TensorListScatterV2",
                       {AsTensor<float>({0, 1, 2, 3, 4, 5}, {3, 2}),
                        AsTensor<int32_t>({4, 0, 2}, {3}),
                        AsTensor<int32_t>({-1}, {1}), AsScalar<int32_t>(2)})
                  .message(),
              HasSubstr("index 4 is out of range for a list of 2 items"));
  EXPECT_THAT(
      RunError("TensorListGather",
               {list, AsTensor<int32_t>({5}, {1}), AsScalar<int32_t>(-1)},
               Dtype())
          .message(),
      HasSubstr("index 5 is out of range for a list of 5 items"));
}

TEST(TensorListTest, StringItems) {
  Tensor strings(DT_STRING, TensorShape({2}));
  strings.data<std::string>()[0] = "weft";
  strings.data<std::string>()[1] = "list";
  Tensor list = Run1("TensorListFromTensor", {strings, AsScalar<int32_t>(-1)});
  ExpectTensorEqual(Run1("TensorListGetItem",
                         {list, AsScalar<int32_t>(1), AsScalar<int32_t>(-1)},
                         Dtype(DT_STRING)),
                    [] {
                      Tensor t(DT_STRING, TensorShape());
                      *t.data<std::string>() = "list";
                      return t;
                    }());
  ExpectTensorEqual(Stack(list, {-1}, DT_STRING), strings);
}

TEST(TensorListTest, ErrorsNameTheNodeAndWhatIsWrong) {
  Tensor list = ThreeRows();
  Status s =
      RunError("TensorListGetItem",
               {list, AsScalar<int32_t>(3), AsScalar<int32_t>(-1)}, Dtype());
  EXPECT_THAT(s.message(),
              HasSubstr("node 'kernel_test/TensorListGetItem' "
                        "(TensorListGetItem): index 3 is out of range for a "
                        "list of 3 items"));
  s = RunError("TensorListGetItem",
               {list, AsScalar<int32_t>(-1), AsScalar<int32_t>(-1)}, Dtype());
  EXPECT_THAT(s.message(), HasSubstr("index -1 is out of range"));
  s = RunError("TensorListGetItem",
               {list, AsScalar<int32_t>(0), AsScalar<int32_t>(-1)},
               Dtype(DT_INT32));
  EXPECT_THAT(s.message(), HasSubstr("the op's element_dtype is int32 but the "
                                     "list holds float elements"));
  s = RunError("TensorListSetItem", {list, AsScalar<int32_t>(0),
                                     AsTensor<float>({1, 2, 3}, {3, 1})});
  EXPECT_THAT(s.message(), HasSubstr("item has shape [3,1] but the list's "
                                     "element shape is [?]"));
  s = RunError("TensorListSetItem",
               {list, AsScalar<int32_t>(3), AsTensor<float>({1, 2}, {2})});
  EXPECT_THAT(s.message(), HasSubstr("index 3 is out of range"));
  s = RunError("TensorListStack", {list, AsScalar<int32_t>(-1)}, [] {
    AttrMap a = Dtype();
    a["num_elements"] = AttrValue::Int(2);
    return a;
  }());
  EXPECT_THAT(s.message(),
              HasSubstr("attr num_elements is 2 but the list has 3 items"));
  s = RunError("TensorListStack", {list, AsTensor<int32_t>({3}, {1})}, Dtype());
  EXPECT_THAT(s.message(), HasSubstr("item 0 has shape [2] but the element "
                                     "shape is [3]"));
  Tensor empty = Run1("EmptyTensorList",
                      {AsScalar<int32_t>(-1), AsScalar<int32_t>(-1)}, Dtype());
  s = RunError("TensorListStack", {empty, AsScalar<int32_t>(-1)}, Dtype());
  EXPECT_THAT(s.message(),
              HasSubstr("cannot stack no items of a list whose element shape "
                        "is not fully defined: <unknown>"));
  ExpectTensorEqual(Stack(empty, {0, 3}), AsTensor<float>({}, {0, 0, 3}));
  s = RunError("TensorListFromTensor",
               {AsTensor<float>({1, 2}, {2}), AsTensor<int32_t>({3}, {1})});
  EXPECT_THAT(s.message(), HasSubstr("element_shape [3] does not fit the rows "
                                     "of a tensor of shape [2]"));
  s = RunError("TensorListFromTensor",
               {AsScalar<float>(1), AsScalar<int32_t>(-1)});
  EXPECT_THAT(s.message(), HasSubstr("tensor must be at least a vector"));
  s = RunError("EmptyTensorList", {AsScalar<int32_t>(3), AsScalar<int32_t>(-1)},
               Dtype());
  EXPECT_THAT(s.message(), HasSubstr("the only scalar element shape is -1"));
  s = RunError("TensorListReserve",
               {AsScalar<int32_t>(-1), AsScalar<int32_t>(-2)}, Dtype());
  EXPECT_THAT(s.message(), HasSubstr("num_elements must be non-negative"));
  // A variant that holds no list.
  Tensor not_a_list(DT_VARIANT, TensorShape());
  s = RunError("TensorListLength", {not_a_list});
  EXPECT_THAT(s.message(), HasSubstr("holds a <empty>, not a TensorList"));
}

TEST(TensorListTest, IdentityPassesListsThrough) {
  Tensor list = ThreeRows();
  Tensor same = Run1("Identity", {list});
  EXPECT_TRUE(same.SharesBufferWith(list));
}

}  // namespace cpu_tensor_list_test
}  // namespace weft
