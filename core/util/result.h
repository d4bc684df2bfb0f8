#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace pyrometer {

// An error a user should read: what went wrong, in one line that names the file.
struct Error {
    std::string message;
    bool operator==(const Error &) const = default;
};

// Either a value or an Error. Errors cross threads and layers as values, never as exceptions.
template <typename T>
class Result {
public:
    Result(T value) : m_data(std::move(value)) {}
    Result(Error error) : m_data(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(m_data); }
    explicit operator bool() const { return ok(); }

    T &value() & { return std::get<T>(m_data); }
    const T &value() const & { return std::get<T>(m_data); }
    T &&value() && { return std::get<T>(std::move(m_data)); }
    const Error &error() const { return std::get<Error>(m_data); }

    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }

private:
    std::variant<T, Error> m_data;
};

} // namespace pyrometer
