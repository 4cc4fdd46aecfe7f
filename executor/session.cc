#include "executor/session.h"

#include <memory>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/mutex.h"
#include "device/bfc_allocator.h"
#include "device/cpu_device.h"
#include "executor/arena_pool.h"
#include "executor/const_values.h"
#include "executor/control_flow.h"
#include "executor/device_graph.h"
#include "executor/device_selection.h"
#include "executor/executor.h"
#include "executor/graph_optimizer.h"
#include "executor/plan.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "oneapi/tbb/info.h"
#include "oneapi/tbb/task_arena.h"

namespace weft {

class SessionImpl : public PlanResources {
 public:
  SessionImpl(std::shared_ptr<const Graph> graph, const SessionOptions& options)
      : graph_(std::move(graph)), options_(options) {}

  Status Init() {
    tbb::task_arena* arena = options_.arena;
    if (arena == nullptr && options_.threads != 0) {
      int threads = options_.threads < 0 ? tbb::info::default_concurrency()
                                         : options_.threads;
      // Leased rather than made: a session's arena goes back to a pool
      // when it ends, for the next session (executor/arena_pool.h).
      owned_arena_ = LeaseArena(threads);
      arena = owned_arena_.get();
    }
    arena_ = arena;
    if (options_.cache_host_memory) {
      BfcAllocator::Options alloc_options = HostCachingAllocatorOptions();
      alloc_options.memory_limit = options_.host_memory_limit_bytes;
      host_allocator_.reset(new BfcAllocator(
          std::make_unique<HostSubAllocator>(), std::move(alloc_options)));
    }
    cpu_ = std::make_unique<CpuDevice>("cpu:0", arena_, host_allocator_.get());
    WEFT_ASSIGN_OR_RETURN(
        std::unique_ptr<Device> accelerator,
        CreateSessionAccelerator(options_.device, cpu_->allocator(),
                                 AcceleratorOptions{
                                     options_.cuda_stream,
                                     options_.allow_tf32,
                                     options_.device_memory_limit_bytes,
                                 }));
    if (accelerator != nullptr) {
      accelerator_ = std::move(accelerator);
      accelerator_type_ = absl::AsciiStrToLower(accelerator_->device_type());
    }
    kernels_.resize(graph_->num_nodes());

    // Const values are checked once here; runs copy references to them.
    return CollectConstValues(*graph_, options_.source_name, &const_values_);
  }

  Status GetKernel(const Node* node, const OpKernel** kernel,
                   Device** device) override {
    Device* placed = Place(node);
    MutexLock lock(&kernels_mu_);
    std::unique_ptr<OpKernel>& slot = kernels_[node->id()];
    if (slot == nullptr) {
      WEFT_ASSIGN_OR_RETURN(slot, CreateKernel(*graph_, node, placed));
    }
    *kernel = slot.get();
    *device = placed;
    return Status();
  }

  const Tensor* ConstValue(const Node* node) const override {
    return const_values_[node->id()];
  }

  // A node's kernel from the registry, or for If, Case and While, one that
  // runs sub-plans of their functions (executor/control_flow.h).
  StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const Graph& graph,
                                                   const Node* node,
                                                   Device* placed) const {
    if (IsControlFlowOp(node->op())) {
      ControlFlowOptions cf;
      cf.library_owner = graph_;
      cf.session_options = options_;
      cf.session_options.arena = arena_;
      if (arena_ == nullptr) cf.session_options.threads = 0;
      cf.session_options.capture_device_graphs = false;
      return CreateControlFlowKernel(graph, *node, placed, cf);
    }
    return KernelRegistry::Global()->CreateKernel(node->def(), node->op_def(),
                                                  node->types(), placed);
  }

  // Placement (see SessionOptions.device). With an accelerator, a node
  // goes to it when a kernel is registered for its op and dtypes on the
  // accelerator's device type, else to the CPU. A node's `device` field
  // naming the CPU keeps it there; naming the accelerator (by its type, its
  // name, or TensorFlow's "GPU") it gets the same rule; naming a device the
  // session does not have, it is placed as if it named none (TensorFlow's
  // soft placement). HostMemory arguments of an accelerator's kernels stay
  // in host memory; BuildPlan puts copies where memory spaces differ.
  // Deterministic, so that the optimizer (which fuses only CPU nodes) and
  // the plans agree.
  Device* Place(const Node* node) {
    if (accelerator_ == nullptr) return cpu_.get();
    switch (RequestedDevice(node->requested_device())) {
      case Requested::kCpu:
        return cpu_.get();
      case Requested::kAccelerator:
      case Requested::kNone:
        break;
    }
    return KernelRegistry::Global()
                   ->FindKernel(node->def(), node->op_def(),
                                accelerator_->device_type())
                   .ok()
               ? accelerator_.get()
               : cpu_.get();
  }

  enum class Requested { kNone, kCpu, kAccelerator };

  // What a node's device field asks of this session: "/device:CPU:0",
  // "/job:w/replica:0/task:0/device:GPU:0", "/cpu:0" and weft's own
  // "cpu:0", "cuda:0" forms are understood; a device the session lacks (or
  // an ordinal other than its accelerator's) counts as none.
  Requested RequestedDevice(absl::string_view requested) const {
    if (requested.empty()) return Requested::kNone;
    absl::string_view spec = requested.substr(requested.rfind('/') + 1);
    absl::ConsumePrefix(&spec, "device:");
    std::string lower = absl::AsciiStrToLower(spec);
    size_t colon = lower.rfind(':');
    std::string type = lower.substr(0, colon);
    std::string index =
        colon == std::string::npos ? "0" : lower.substr(colon + 1);
    if (type == "cpu") return index == "0" ? Requested::kCpu : Requested::kNone;
    if (type == "gpu" || type == accelerator_type_ ||
        absl::StartsWith(accelerator_->name(), absl::StrCat(type, ":"))) {
      if (absl::EndsWith(accelerator_->name(), absl::StrCat(":", index))) {
        return Requested::kAccelerator;
      }
    }
    return Requested::kNone;
  }

  StatusOr<std::shared_ptr<const Callable>> Prepare(
      const std::vector<std::string>& feeds,
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);
  // Prepare for names that are graph tensors (aliases resolved).
  StatusOr<std::shared_ptr<const Callable>> PrepareTensors(
      const std::vector<std::string>& feeds,
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);

  // The plan of the graph optimizer's graph (executor/graph_optimizer.h)
  // of the `live` nodes for the signature; null when nothing was rewritten.
  StatusOr<std::unique_ptr<Plan>> OptimizePlan(
      const std::vector<const Node*>& live,
      const std::vector<std::string>& feeds,
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);

  // The callable cached for this signature (by Run with names, or by
  // Create for SessionOptions' fetches), else a new one that `remember`
  // adds to the cache. Feeds are names, or (name, tensor) pairs.
  template <typename Feed>
  StatusOr<std::shared_ptr<const Callable>> CachedCallable(
      const std::vector<Feed>& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets, bool remember);

  // Session::Run and RunTakingFeeds: `taken` is null, or &feeds.
  Status RunCallable(const Callable& callable, const std::vector<Tensor>& feeds,
                     std::vector<Tensor>* taken, std::vector<Tensor>* outputs,
                     const RunOptions& options, RunMetadata* metadata) const;

  Status CheckFeeds(const Callable& callable, const Plan& plan,
                    const std::vector<Tensor>& feeds) const;

  BuildPlanOptions PlanOptions() const {
    BuildPlanOptions o;
    o.source_name = options_.source_name;
    o.host_allocator = cpu_->allocator();
    return o;
  }

  std::shared_ptr<const Graph> graph_;
  SessionOptions options_;
  ArenaLease owned_arena_;
  tbb::task_arena* arena_ = nullptr;
  // Closed rather than deleted: tensors the session handed out may outlive
  // it, and keep the allocator alive until the last of them goes.
  struct CloseAllocator {
    void operator()(BfcAllocator* a) const { a->Close(); }
  };
  std::unique_ptr<BfcAllocator, CloseAllocator> host_allocator_;
  std::unique_ptr<CpuDevice> cpu_;
  // The device nodes are placed on besides the CPU, or null. Shared with
  // plans that hold tensors in its memory.
  std::shared_ptr<Device> accelerator_;
  std::string accelerator_type_;  // its device type in lower case
  std::vector<const Tensor*> const_values_;

  Mutex kernels_mu_;
  std::vector<std::unique_ptr<OpKernel>> kernels_ ABSL_GUARDED_BY(kernels_mu_);

  Mutex cache_mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const Callable>> cache_
      ABSL_GUARDED_BY(cache_mu_);
};

Callable::~Callable() = default;
DataType Callable::feed_dtype(int i) const { return plan_->feed_dtypes()[i]; }
const PartialTensorShape& Callable::feed_shape(int i) const {
  return plan_->feed_shapes()[i];
}
DataType Callable::fetch_dtype(int i) const { return plan_->fetch_dtypes()[i]; }
const PartialTensorShape& Callable::fetch_shape(int i) const {
  return plan_->fetch_shapes()[i];
}
int Callable::num_nodes() const {
  return static_cast<int>(plan_->nodes().size()) - plan_->num_copies();
}
int Callable::num_copies() const { return plan_->num_copies(); }

Status Callable::device_graph_status() const {
  if (plan_->device_graph() == nullptr) {
    return errors::FailedPrecondition(
        "capture_device_graphs is off for this session");
  }
  return plan_->device_graph()->status();
}
std::vector<std::pair<std::string, std::string>> Callable::placement() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const PlanNode& pn : plan_->nodes()) {
    if (pn.step == PlanStep::kKernel) {
      out.emplace_back(pn.node->name(), pn.device->name());
    }
  }
  return out;
}
std::string Callable::optimizer_summary() const {
  if (plan_->optimized() == nullptr) return std::string();
  const GraphOptimizerStats& s = plan_->optimized()->stats();
  return absl::StrCat(
      s.nodes_before, " nodes -> ", num_nodes(), ": ", s.folded,
      " folded into constants, ", s.fused, " fused nodes absorbing ",
      s.fused_away,
      s.folded_pads > 0
          ? absl::StrCat(", ", s.folded_pads, " Pads folded into convolutions")
          : std::string(),
      s.cropped_filters > 0
          ? absl::StrCat(", ", s.cropped_filters,
                         " convolution filters cropped to the taps that read "
                         "their input")
          : std::string(),
      s.merged_duplicates > 0
          ? absl::StrCat(", ", s.merged_duplicates, " duplicate nodes merged")
          : std::string(),
      s.atrous_convs > 0
          ? absl::StrCat(", ", s.atrous_convs,
                         " SpaceToBatchND/BatchToSpaceND pairs made dilated "
                         "convolutions")
          : std::string(),
      s.passed_through > 0
          ? absl::StrCat(", ", s.passed_through, " Identity nodes read through")
          : std::string());
}

StatusOr<std::shared_ptr<const Callable>> SessionImpl::Prepare(
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  if (!graph_->aliases().empty()) {
    // A SavedModel's signature keys name graph tensors; the callable keeps
    // the names the caller used, for its errors.
    std::vector<std::string> feed_tensors, fetch_tensors;
    for (const auto& f : feeds) feed_tensors.push_back(graph_->ResolveAlias(f));
    for (const auto& f : fetches) {
      fetch_tensors.push_back(graph_->ResolveAlias(f));
    }
    WEFT_ASSIGN_OR_RETURN(auto callable,
                          PrepareTensors(feed_tensors, fetch_tensors, targets));
    auto named = std::const_pointer_cast<Callable>(callable);
    named->feeds_ = feeds;
    named->fetches_ = fetches;
    return callable;
  }
  return PrepareTensors(feeds, fetches, targets);
}

StatusOr<std::shared_ptr<const Callable>> SessionImpl::PrepareTensors(
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  std::unique_ptr<Plan> plan;
  if (options_.optimize) {
    // The signature checked and what it runs found, without kernels for the
    // graph as given (making them was a twentieth of loading a model): the
    // optimized graph's plan makes its own.
    WEFT_ASSIGN_OR_RETURN(
        std::vector<const Node*> live,
        PlanNodes(*graph_, feeds, fetches, targets, this, PlanOptions()));
    WEFT_ASSIGN_OR_RETURN(plan, OptimizePlan(live, feeds, fetches, targets));
  }
  if (plan == nullptr) {
    // Not optimizing, or nothing was rewritten: the graph as given runs.
    WEFT_ASSIGN_OR_RETURN(
        plan, BuildPlan(*graph_, feeds, fetches, targets, this, PlanOptions()));
  }
  std::shared_ptr<Callable> callable(new Callable());
  callable->feeds_ = feeds;
  callable->fetches_ = fetches;
  // Device copies of constants and recordings are freed into the
  // accelerator, which must outlive them even when the callable outlives the
  // session.
  plan->set_accelerator(accelerator_);
  if (options_.capture_device_graphs) {
    plan->set_device_graph(std::make_unique<DeviceGraph>(*plan));
  }
  callable->plan_ = std::move(plan);
  return std::shared_ptr<const Callable>(std::move(callable));
}

StatusOr<std::unique_ptr<Plan>> SessionImpl::OptimizePlan(
    const std::vector<const Node*>& live, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  GraphOptimizerOptions options;
  options.source_name = options_.source_name;
  options.cpu = cpu_.get();
  options.place = [this](const Node* node) { return Place(node); };
  options.create_kernel = [this](const Graph& graph, const Node* node,
                                 Device* placed) {
    return CreateKernel(graph, node, placed);
  };
  WEFT_ASSIGN_OR_RETURN(
      std::shared_ptr<OptimizedGraph> optimized,
      OptimizeGraph(*graph_, live, feeds, fetches, targets, options));
  if (optimized == nullptr) return std::unique_ptr<Plan>();
  WEFT_ASSIGN_OR_RETURN(
      std::unique_ptr<Plan> optimized_plan,
      BuildPlan(optimized->graph(), feeds, optimized->fetches(),
                optimized->targets(), optimized.get(), PlanOptions()));
  optimized_plan->set_optimized(std::move(optimized));
  return optimized_plan;
}

namespace {
const std::string& FeedName(const std::string& name) { return name; }
const std::string& FeedName(const std::pair<std::string, Tensor>& feed) {
  return feed.first;
}
}  // namespace

template <typename Feed>
StatusOr<std::shared_ptr<const Callable>> SessionImpl::CachedCallable(
    const std::vector<Feed>& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, bool remember) {
  // Names cannot contain '\n' in any form Prepare accepts, so it separates.
  std::string key;
  for (const auto& f : feeds) absl::StrAppend(&key, FeedName(f), "\n");
  absl::StrAppend(&key, "\x01", absl::StrJoin(fetches, "\n"), "\x01",
                  absl::StrJoin(targets, "\n"));
  {
    ReaderMutexLock lock(&cache_mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
  }
  std::vector<std::string> feed_names;
  feed_names.reserve(feeds.size());
  for (const auto& f : feeds) feed_names.push_back(FeedName(f));
  WEFT_ASSIGN_OR_RETURN(std::shared_ptr<const Callable> callable,
                        Prepare(feed_names, fetches, targets));
  if (!remember) return callable;
  MutexLock lock(&cache_mu_);
  return cache_.emplace(key, std::move(callable)).first->second;
}

Status SessionImpl::CheckFeeds(const Callable& callable, const Plan& plan,
                               const std::vector<Tensor>& feeds) const {
  if (feeds.size() != plan.feed_dtypes().size()) {
    return errors::InvalidArgument(options_.source_name, ": expected ",
                                   plan.feed_dtypes().size(), " feeds, got ",
                                   feeds.size());
  }
  for (size_t i = 0; i < feeds.size(); ++i) {
    const Tensor& t = feeds[i];
    const PartialTensorShape& want = plan.feed_shapes()[i];
    if (!t.IsInitialized() || t.dtype() != plan.feed_dtypes()[i] ||
        !want.IsCompatibleWith(t.shape())) {
      return errors::InvalidArgument(
          options_.source_name, ": feed '", callable.feeds()[i], "': expected ",
          DataTypeName(plan.feed_dtypes()[i]), " ", want.DebugString(),
          ", got ",
          t.IsInitialized() ? absl::StrCat(DataTypeName(t.dtype()), " ",
                                           t.shape().DebugString())
                            : std::string("an empty tensor"));
    }
  }
  return Status();
}

namespace {

// A run that ran out of memory (host_memory_limit_bytes, or the device's)
// usually did so because of what it was fed: the error lists the feeds, so
// the caller sees which input (most often the batch) to shrink. Formatted
// on this error path only.
Status NameFeeds(const Status& s, absl::string_view source,
                 const Callable& callable, const std::vector<Tensor>& feeds) {
  if (!absl::IsResourceExhausted(s) || feeds.empty()) return s;
  // The node's error does not name the graph; the caller may hold several.
  std::string fed = absl::StartsWith(s.message(), source)
                        ? std::string()
                        : absl::StrCat(source, ": ");
  absl::StrAppend(&fed, s.message(), " (the run's ");
  for (size_t i = 0; i < feeds.size(); ++i) {
    absl::StrAppend(&fed, i == 0 ? "" : ", ", "feed '", callable.feeds()[i],
                    "' ", DataTypeName(feeds[i].dtype()));
    // A feed the run took (RunTakingFeeds) has left; its dtype stays.
    if (feeds[i].IsInitialized()) {
      absl::StrAppend(&fed, " ", feeds[i].shape().DebugString());
    }
  }
  return Status(s.code(), absl::StrCat(fed, ")"));
}

}  // namespace

Session::Session() = default;
Session::~Session() = default;

StatusOr<std::unique_ptr<Session>> Session::Create(
    std::shared_ptr<const Graph> graph, const SessionOptions& options) {
  if (graph == nullptr) return errors::InvalidArgument("no graph given");
  if (options.host_memory_limit_bytes < 0 ||
      (options.host_memory_limit_bytes > 0 && !options.cache_host_memory)) {
    return errors::InvalidArgument(
        "SessionOptions.host_memory_limit_bytes is ",
        options.host_memory_limit_bytes,
        options.host_memory_limit_bytes < 0
            ? "; expected 0 (no limit) or a positive byte count"
            : " but cache_host_memory is false; the limit applies to the "
              "session's caching allocator only");
  }
  if (options.threads < -1) {
    return errors::InvalidArgument("SessionOptions.threads is ",
                                   options.threads,
                                   "; expected -1 (one per core), 0 (the "
                                   "calling thread) or a positive count");
  }
  // Before anything is built: a session that cannot have the device it was
  // asked for fails with the reason, naming the graph.
  if (auto device = ResolveSessionDevice(options.device); !device.ok()) {
    return AddContext(device.status(), options.source_name);
  }
  std::unique_ptr<Session> session(new Session());
  session->impl_ = std::make_unique<SessionImpl>(std::move(graph), options);
  WEFT_RETURN_IF_ERROR(session->impl_->Init());
  if (!options.fetches.empty() || !options.targets.empty()) {
    // Kept: the caller's Prepare (or Run by name) of the same signature
    // gets this callable instead of optimizing and packing it again.
    WEFT_RETURN_IF_ERROR(session->impl_
                             ->CachedCallable(options.feeds, options.fetches,
                                              options.targets,
                                              /*remember=*/true)
                             .status());
  }
  return session;
}

StatusOr<std::shared_ptr<const Callable>> Session::Prepare(
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) const {
  return impl_->CachedCallable(feeds, fetches, targets, /*remember=*/false);
}

Status SessionImpl::RunCallable(const Callable& callable,
                                const std::vector<Tensor>& feeds,
                                std::vector<Tensor>* taken,
                                std::vector<Tensor>* outputs,
                                const RunOptions& options,
                                RunMetadata* metadata) const {
  const Plan& plan = *callable.plan_;
  WEFT_RETURN_IF_ERROR(CheckFeeds(callable, plan, feeds));
  Status s = taken != nullptr
                 ? ExecutePlanTakingFeeds(plan, arena_, cpu_->spin_team(),
                                          taken, outputs, options, metadata)
                 : ExecutePlan(plan, arena_, cpu_->spin_team(), feeds, outputs,
                               options, metadata);
  if (!s.ok()) return NameFeeds(s, options_.source_name, callable, feeds);
  return s;
}

Status Session::Run(const Callable& callable, const std::vector<Tensor>& feeds,
                    std::vector<Tensor>* outputs, const RunOptions& options,
                    RunMetadata* metadata) const {
  return impl_->RunCallable(callable, feeds, nullptr, outputs, options,
                            metadata);
}

Status Session::RunTakingFeeds(const Callable& callable,
                               std::vector<Tensor>* feeds,
                               std::vector<Tensor>* outputs,
                               const RunOptions& options,
                               RunMetadata* metadata) const {
  return impl_->RunCallable(callable, *feeds, feeds, outputs, options,
                            metadata);
}

StatusOr<std::vector<Tensor>> Session::Run(
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, const RunOptions& options,
    RunMetadata* metadata) const {
  WEFT_ASSIGN_OR_RETURN(
      std::shared_ptr<const Callable> callable,
      impl_->CachedCallable(feeds, fetches, targets, /*remember=*/true));
  std::vector<Tensor> feed_values;
  feed_values.reserve(feeds.size());
  for (const auto& f : feeds) feed_values.push_back(f.second);
  std::vector<Tensor> outputs;
  WEFT_RETURN_IF_ERROR(
      Run(*callable, feed_values, &outputs, options, metadata));
  return outputs;
}

const Graph& Session::graph() const { return *impl_->graph_; }

std::vector<const Device*> Session::devices() const {
  if (impl_->accelerator_ == nullptr) return {impl_->cpu_.get()};
  return {impl_->cpu_.get(), impl_->accelerator_.get()};
}

int Session::num_threads() const {
  return impl_->arena_ ? impl_->arena_->max_concurrency() : 1;
}

}  // namespace weft
