// SPDX-License-Identifier: GPL-2.0
// Corpus program for sframe_diff: C++ exceptions, templates, inlining.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>
#include <cstdio>

template <typename T> T accumulate(const std::vector<T> &v)
{
	T sum{};
	for (const auto &x : v)
		sum += x;
	if (v.size() > 1000)
		throw std::runtime_error("too big");
	return sum;
}

struct Node {
	std::map<std::string, int> kids;
	virtual ~Node() = default;
	virtual int weight() const { return (int)kids.size(); }
};

struct Leaf : Node {
	int weight() const override { return 1; }
};

int main(int argc, char **)
{
	std::vector<int> v(argc * 10, 3);
	std::vector<double> d(argc * 5, 1.5);
	Node n;
	Leaf l;
	n.kids["a"] = 1;
	try {
		if (argc > 3)
			v.resize(2000);
		std::printf("%d %f %d %d\n", accumulate(v), accumulate(d),
			    n.weight(), l.weight());
	} catch (const std::exception &e) {
		std::printf("%s\n", e.what());
	}
	return 0;
}
