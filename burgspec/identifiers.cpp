#include "burgspec/identifiers.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

namespace burgspec {

namespace {

// The keywords of C (C23) and C++ (C++23) together, and the alternative operator spellings; sorted.
constexpr std::string_view kKeywords[] = {
    "_Alignas", "_Alignof", "_Atomic", "_BitInt", "_Bool", "_Complex", "_Decimal128", "_Decimal32",
    "_Decimal64", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local", "alignas",
    "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
    "char16_t", "char32_t", "char8_t", "class", "co_await", "co_return", "co_yield", "compl", "concept",
    "const", "const_cast", "consteval", "constexpr", "constinit", "continue", "decltype", "default",
    "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
    "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
    "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
    "register", "reinterpret_cast", "requires", "restrict", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true",
    "try", "typedef", "typeid", "typename", "typeof", "typeof_unqual", "union", "unsigned", "using",
    "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"};

}  // namespace

std::optional<std::string> unusableIdentifier(const std::string& name) {
  if (std::binary_search(std::begin(kKeywords), std::end(kKeywords), std::string_view(name)))
    return "is a keyword of C or C++";
  if (!name.empty() && name[0] == '_') return "begins with an underscore, which C and C++ reserve";
  if (name.find("__") != std::string::npos) return "holds two underscores in a row, which C and C++ reserve";
  return std::nullopt;
}

}  // namespace burgspec
