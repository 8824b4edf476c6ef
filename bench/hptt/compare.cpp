#include <hptt.h>
#include <chrono>
#include <vector>
#include <cstring>
#include <cstdio>
#include <algorithm>
template <typename T>
void run(const char* name, std::vector<int> size, std::vector<int> perm) {
  int dim = size.size();
  size_t n = 1; for (int s : size) n *= s;
  std::vector<T> A(n), B(n), C(n);
  for (size_t i = 0; i < n; i++) A[i] = (T)(i % 1000);
  auto plan = hptt::create_plan(perm.data(), dim, (T)1, A.data(), size.data(), nullptr, (T)0, B.data(), nullptr, hptt::ESTIMATE, 1, nullptr, true);
  auto timeit = [&](auto f) {
    std::vector<double> t;
    for (int r = 0; r < 15; r++) {
      auto s = std::chrono::steady_clock::now();
      int reps = 0;
      double el;
      do { f(); reps++; el = std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count(); } while (el < 0.02);
      t.push_back(el / reps);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  double th = timeit([&] { plan->execute(); });
  double tc = timeit([&] { memcpy(C.data(), A.data(), n * sizeof(T)); });
  printf("%-28s %8.2f GB/s hptt  %8.2f GB/s memcpy  ratio %.2f\n", name, n * sizeof(T) / th / 1e9, n * sizeof(T) / tc / 1e9, tc / th);
}
int main() {
  run<double>("1000x1000 f64", {1000, 1000}, {1, 0});
  run<double>("1024x1024 f64", {1024, 1024}, {1, 0});
  run<float>("2048x2048 f32", {2048, 2048}, {1, 0});
  run<float>("4096x4096 f32", {4096, 4096}, {1, 0});
  run<float>("2000x2000 f32", {2000, 2000}, {1, 0});
  run<float>("1x64x270x480 NCHW-NHWC", {1, 64, 270, 480}, {0, 2, 3, 1});
  run<float>("1x3x2x2x270x480 ps-hwc", {1, 3, 2, 2, 270, 480}, {0, 4, 2, 5, 3, 1});
  run<float>("8x16x12x10x6 r5", {8, 16, 12, 10, 6}, {4, 2, 0, 3, 1});
  run<float>("4x6x8x5x7x3 r6", {4, 6, 8, 5, 7, 3}, {5, 3, 1, 0, 4, 2});
  run<float>("1x2048x32x128 heads", {1, 2048, 32, 128}, {0, 2, 1, 3});
}
