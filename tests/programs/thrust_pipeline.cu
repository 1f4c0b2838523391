// thrust_pipeline — a whole-application shape: the toolkit's own thrust and CUB device-wide algorithms, as an
// application builds them (nvcc, the toolkit's headers, cudart static), on data of 100k elements. Sort (keys, and
// pairs), reduce, inclusive/exclusive scan, copy_if, partition, unique, reduce_by_key through thrust; histogram and
// run-length encoding through CUB directly (temporary storage queried, then used). Every result is checked against a
// host computation of the same thing.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/unique.h>

#include "check.h"

struct is_even {
    __host__ __device__ bool operator()(unsigned v) const { return (v & 1u) == 0; }
};

static int failures;
static void expect(bool ok, const char *what)
{
    if (!ok) {
        printf("mismatch: %s\n", what);
        failures++;
    }
}

// A deterministic pseudo-random sequence (xorshift), so a failure reproduces.
static std::vector<unsigned> make_keys(int n, unsigned range)
{
    std::vector<unsigned> v(n);
    unsigned s = 2463534242u;
    for (int i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        v[i] = s % range;
    }
    return v;
}

static int check_sorts(const std::vector<unsigned> &keys)
{
    const int n = (int)keys.size();
    thrust::device_vector<unsigned> d(keys.begin(), keys.end());
    thrust::sort(d.begin(), d.end());
    std::vector<unsigned> want(keys);
    std::sort(want.begin(), want.end());
    thrust::host_vector<unsigned> got = d;
    expect(std::equal(want.begin(), want.end(), got.begin()), "thrust::sort");

    // Pairs: values are the original positions, so a stable sort's result is known exactly.
    thrust::device_vector<unsigned> dk(keys.begin(), keys.end());
    std::vector<int> pos(n);
    std::iota(pos.begin(), pos.end(), 0);
    thrust::device_vector<int> dv(pos.begin(), pos.end());
    thrust::stable_sort_by_key(dk.begin(), dk.end(), dv.begin());
    std::stable_sort(pos.begin(), pos.end(), [&](int a, int b) { return keys[a] < keys[b]; });
    thrust::host_vector<int> gotv = dv;
    thrust::host_vector<unsigned> gotk = dk;
    expect(std::equal(pos.begin(), pos.end(), gotv.begin()), "thrust::stable_sort_by_key values");
    expect(std::equal(want.begin(), want.end(), gotk.begin()), "thrust::stable_sort_by_key keys");
    return 0;
}

static int check_reduce_scan(const std::vector<unsigned> &keys)
{
    thrust::device_vector<unsigned> d(keys.begin(), keys.end());
    unsigned long long sum = thrust::reduce(d.begin(), d.end(), 0ull, thrust::plus<unsigned long long>());
    unsigned long long want_sum = std::accumulate(keys.begin(), keys.end(), 0ull);
    expect(sum == want_sum, "thrust::reduce (sum)");
    unsigned mx = thrust::reduce(d.begin(), d.end(), 0u, thrust::maximum<unsigned>());
    expect(mx == *std::max_element(keys.begin(), keys.end()), "thrust::reduce (max)");

    thrust::device_vector<unsigned> out(keys.size());
    std::vector<unsigned> want(keys.size());
    thrust::inclusive_scan(d.begin(), d.end(), out.begin());
    std::partial_sum(keys.begin(), keys.end(), want.begin());
    thrust::host_vector<unsigned> got = out;
    expect(std::equal(want.begin(), want.end(), got.begin()), "thrust::inclusive_scan");

    thrust::exclusive_scan(d.begin(), d.end(), out.begin(), 7u);
    unsigned run = 7;
    for (size_t i = 0; i < keys.size(); i++) {
        want[i] = run;
        run += keys[i];
    }
    got = out;
    expect(std::equal(want.begin(), want.end(), got.begin()), "thrust::exclusive_scan");
    return 0;
}

static int check_select(const std::vector<unsigned> &keys)
{
    thrust::device_vector<unsigned> d(keys.begin(), keys.end());
    thrust::device_vector<unsigned> out(keys.size());
    auto end = thrust::copy_if(d.begin(), d.end(), out.begin(), is_even());
    std::vector<unsigned> want;
    std::copy_if(keys.begin(), keys.end(), std::back_inserter(want), is_even());
    thrust::host_vector<unsigned> got(out.begin(), end);
    expect(got.size() == want.size() && std::equal(want.begin(), want.end(), got.begin()), "thrust::copy_if");

    // stable_partition: the evens in order, then the odds in order.
    auto mid = thrust::stable_partition(d.begin(), d.end(), is_even());
    std::vector<unsigned> wantp(keys);
    std::stable_partition(wantp.begin(), wantp.end(), is_even());
    got = d;
    expect(mid - d.begin() == (long)want.size(), "thrust::stable_partition split point");
    expect(std::equal(wantp.begin(), wantp.end(), got.begin()), "thrust::stable_partition");
    return 0;
}

static int check_unique_reduce_by_key(const std::vector<unsigned> &sorted)
{
    // Sorted keys with many repeats: unique and reduce_by_key (key -> count) have long runs to merge.
    thrust::device_vector<unsigned> d(sorted.begin(), sorted.end());
    thrust::device_vector<unsigned> ones(sorted.size(), 1u);
    thrust::device_vector<unsigned> ukeys(sorted.size()), counts(sorted.size());
    auto ends = thrust::reduce_by_key(d.begin(), d.end(), ones.begin(), ukeys.begin(), counts.begin());
    std::vector<unsigned> want_keys, want_counts;
    for (size_t i = 0; i < sorted.size(); i++) {
        if (i == 0 || sorted[i] != sorted[i - 1]) {
            want_keys.push_back(sorted[i]);
            want_counts.push_back(0);
        }
        want_counts.back()++;
    }
    thrust::host_vector<unsigned> gk(ukeys.begin(), ends.first), gc(counts.begin(), ends.second);
    expect(gk.size() == want_keys.size() && std::equal(want_keys.begin(), want_keys.end(), gk.begin()),
           "thrust::reduce_by_key keys");
    expect(gc.size() == want_counts.size() && std::equal(want_counts.begin(), want_counts.end(), gc.begin()),
           "thrust::reduce_by_key counts");

    auto uend = thrust::unique(d.begin(), d.end());
    thrust::host_vector<unsigned> gu(d.begin(), uend);
    expect(gu.size() == want_keys.size() && std::equal(want_keys.begin(), want_keys.end(), gu.begin()),
           "thrust::unique");
    return 0;
}

static int check_cub(const std::vector<unsigned> &keys, const std::vector<unsigned> &sorted)
{
    const int n = (int)keys.size(), bins = 64;
    const unsigned range = 1000;
    unsigned *dkeys = nullptr, *dsorted = nullptr, *dunique = nullptr, *dcounts = nullptr, *dnruns = nullptr;
    int *dhist = nullptr;
    CHECK(cudaMalloc(&dkeys, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&dsorted, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&dunique, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&dcounts, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&dnruns, sizeof(unsigned)));
    CHECK(cudaMalloc(&dhist, bins * sizeof(int)));
    CHECK(cudaMemcpy(dkeys, keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dsorted, sorted.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));

    // Histogram: 64 even bins over [0, 1000) -> bin = v * 64 / 1000.
    void *temp = nullptr;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, dkeys, dhist, bins + 1, 0u, range, n));
    CHECK(cudaMalloc(&temp, temp_bytes));
    CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, dkeys, dhist, bins + 1, 0u, range, n));
    CHECK(cudaFree(temp));
    std::vector<int> hist(bins), want_hist(bins, 0);
    CHECK(cudaMemcpy(hist.data(), dhist, bins * sizeof(int), cudaMemcpyDeviceToHost));
    for (unsigned v : keys)
        want_hist[(unsigned long long)v * bins / range]++;
    expect(hist == want_hist, "cub::DeviceHistogram::HistogramEven");

    // Run-length encoding of the sorted keys.
    temp = nullptr;
    temp_bytes = 0;
    CHECK(cub::DeviceRunLengthEncode::Encode(temp, temp_bytes, dsorted, dunique, dcounts, dnruns, n));
    CHECK(cudaMalloc(&temp, temp_bytes));
    CHECK(cub::DeviceRunLengthEncode::Encode(temp, temp_bytes, dsorted, dunique, dcounts, dnruns, n));
    CHECK(cudaFree(temp));
    unsigned nruns = 0;
    CHECK(cudaMemcpy(&nruns, dnruns, sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::vector<unsigned> want_unique, want_counts;
    for (int i = 0; i < n; i++) {
        if (i == 0 || sorted[i] != sorted[i - 1]) {
            want_unique.push_back(sorted[i]);
            want_counts.push_back(0);
        }
        want_counts.back()++;
    }
    expect(nruns == want_unique.size(), "cub::DeviceRunLengthEncode::Encode run count");
    if (nruns == want_unique.size()) {
        std::vector<unsigned> u(nruns), c(nruns);
        CHECK(cudaMemcpy(u.data(), dunique, nruns * sizeof(unsigned), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(c.data(), dcounts, nruns * sizeof(unsigned), cudaMemcpyDeviceToHost));
        expect(u == want_unique, "cub::DeviceRunLengthEncode::Encode unique keys");
        expect(c == want_counts, "cub::DeviceRunLengthEncode::Encode counts");
    }
    CHECK(cudaFree(dkeys));
    CHECK(cudaFree(dsorted));
    CHECK(cudaFree(dunique));
    CHECK(cudaFree(dcounts));
    CHECK(cudaFree(dnruns));
    CHECK(cudaFree(dhist));
    return 0;
}

int main()
{
    const int n = 100000;
    std::vector<unsigned> keys = make_keys(n, 1000); // many repeats: runs for unique / RLE / reduce_by_key
    std::vector<unsigned> sorted(keys);
    std::sort(sorted.begin(), sorted.end());
    try {
        if (check_sorts(make_keys(n, 0xffffffffu)) || check_sorts(keys) || check_reduce_scan(keys) ||
            check_select(keys) || check_unique_reduce_by_key(sorted) || check_cub(keys, sorted))
            return 1;
    } catch (const std::exception &e) {
        printf("FAIL thrust_pipeline: exception: %s\n", e.what());
        return 1;
    }
    if (failures) {
        printf("FAIL thrust_pipeline: %d mismatches\n", failures);
        return 1;
    }
    printf("PASS thrust_pipeline (%d elements: sort, sort_by_key, reduce, scans, copy_if, partition, unique, "
           "reduce_by_key, cub histogram, cub run-length encode)\n",
           n);
    return 0;
}
