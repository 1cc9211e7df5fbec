// The runtime's switches (runtime/core/Env.h): a value read once is remembered,
// yet setenv and unsetenv between calls are seen at the next read; inside an
// EnvScope a thread reads the switches as they were when the scope began;
// a value outside the choices falls back to the first. And the scratch
// memory calls keep their bookkeeping in (runtime/core/Scratch.h).
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "core/Env.h"
#include "core/Scratch.h"

using coconet_rt::env_choice;
using coconet_rt::env_is;
using coconet_rt::env_value;
using coconet_rt::EnvScope;

namespace {

const char *kName = "COCONET_TEST_ENV_SWITCH";

std::string value() {
    const char *v = env_value(kName);
    return v ? v : "(unset)";
}

} // namespace

TEST_CASE("setenv and unsetenv between reads are seen", "[runtime]") {
    unsetenv(kName);
    CHECK(value() == "(unset)");
    setenv(kName, "one", 1);
    CHECK(value() == "one");
    CHECK(value() == "one");
    setenv(kName, "two", 1); // replaces the entry in place
    CHECK(value() == "two");
    setenv(kName, "one", 1); // glibc may hand back the first string
    CHECK(value() == "one");
    // Another variable added or removed changes nothing of this one's.
    setenv("COCONET_TEST_ENV_OTHER", "x", 1);
    CHECK(value() == "one");
    unsetenv("COCONET_TEST_ENV_OTHER");
    CHECK(value() == "one");
    unsetenv(kName);
    CHECK(value() == "(unset)");
    // A name given by another pointer with the same text.
    static const char same_text[] = "COCONET_TEST_ENV_SWITCH";
    setenv(kName, "three", 1);
    CHECK(std::string(env_value(same_text)) == "three");
    unsetenv(kName);
}

TEST_CASE("inside an EnvScope a thread reads the switches as they were", "[runtime]") {
    setenv(kName, "before", 1);
    {
        const EnvScope outer;
        CHECK(value() == "before");
        setenv(kName, "during", 1);
        {
            const EnvScope inner; // nested: still the outer scope's view
            CHECK(value() == "before");
        }
        CHECK(value() == "before");
        // Another thread has no scope: it sees the change.
        std::string seen;
        std::thread([&] { seen = value(); }).join();
        CHECK(seen == "during");
    }
    CHECK(value() == "during");
    unsetenv(kName);
}

TEST_CASE("env_choice takes one of the choices, else the first", "[runtime]") {
    unsetenv(kName);
    CHECK(std::strcmp(env_choice(kName, {"auto", "always", "never"}), "auto") == 0);
    setenv(kName, "", 1);
    CHECK(env_is(kName, {"auto", "always", "never"}, "auto"));
    setenv(kName, "never", 1);
    CHECK(env_is(kName, {"auto", "always", "never"}, "never"));
    CHECK_FALSE(env_is(kName, {"auto", "always", "never"}, "always"));
    setenv(kName, "sometimes", 1); // warned about once, on stderr
    CHECK(env_is(kName, {"auto", "always", "never"}, "auto"));
    unsetenv(kName);
}

TEST_CASE("scratch memory serves small vectors in place, larger ones from the heap", "[runtime]") {
    coconet_rt::Scratch<256> scratch;
    const auto *begin = reinterpret_cast<const char *>(&scratch);
    const auto *end = begin + sizeof(scratch);
    auto inside = [&](const void *p) {
        return static_cast<const char *>(p) >= begin && static_cast<const char *>(p) < end;
    };
    coconet_rt::ScratchVector<int> small({1, 2, 3}, &scratch);
    CHECK(inside(small.data()));
    coconet_rt::ScratchVector<double> large(1000, 1.5, &scratch); // past the block
    CHECK_FALSE(inside(large.data()));
    CHECK(large[999] == 1.5);
    CHECK(small[2] == 3);
    // Elements of a deque stay where they are as it grows (views point into them).
    std::pmr::deque<std::string> d(&scratch);
    const std::string *first = &d.emplace_back("first");
    for (int i = 0; i < 100; i++) {
        d.emplace_back(std::to_string(i));
    }
    CHECK(first == &d.front());
    CHECK(d.front() == "first");
}
