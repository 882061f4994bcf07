// C string functions, Python eval/exec/shell=True, JavaScript eval/innerHTML.
#include <gtest/gtest.h>

#include "core/builtin/rule_catalog.h"
#include "tests/unit/builtin/review_fixture.h"

namespace revline::builtin::testing {
namespace {

using contract::Category;
using contract::Severity;

// `path` grows from a first line to that line plus `lines`; added line k is file line k + 1.
std::vector<contract::Finding> added(const std::string& path, const std::string& lines) {
  const std::string first = path.ends_with(".py") ? "import os\n" : "/* start */\n";
  return review(path, first, first + lines);
}

TEST(CStringFunctions, StrcpyIntoAVisibleArrayGetsASnprintfEdit) {
  const auto f = added("copy.c", "char name[32];\nstrcpy(name, input);\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 3);
  EXPECT_EQ(f[0].category, Category::Security);
  // A rule below 9-in-10 measured precision reports as a comment (rule_catalog.h).
  EXPECT_EQ(f[0].severity, ruleInfo(RuleId::UnboundedCString).blocks() ? Severity::Major : Severity::Minor);
  ASSERT_TRUE(f[0].edit);
  EXPECT_EQ(f[0].edit->original, "strcpy(name, input);");
  EXPECT_EQ(f[0].edit->replacement, "snprintf(name, sizeof name, \"%s\", input);");

  const auto s = added("fmt.cpp", "    char buf[64];\n    std::sprintf(buf, \"%s-%d\", tag, n);\n");
  ASSERT_EQ(s.size(), 1u);
  ASSERT_TRUE(s[0].edit);
  EXPECT_EQ(s[0].edit->replacement, "    std::snprintf(buf, sizeof buf, \"%s-%d\", tag, n);");
}

TEST(CStringFunctions, NoEditWhenTheDestinationMayBeAPointer) {
  const auto f = added("copy.c", "void f(char *dst, const char *src) { strcpy(dst, src); strcat(dst, \"!\"); }\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_FALSE(f[0].edit);
}

// Found on curl's history: the rewrite changed what the code means.
TEST(CStringFunctions, NoEditWhenTheCallsValueIsUsedOrTheArrayIsAnotherFunctions) {
  // strcpy's char* result used: snprintf returns an int.
  auto f = added("use.c", "char alt[64];\nchar *p = memcpy(strcpy(alt, expect), \"DHE-\", 4);\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_FALSE(f[0].edit);
  // A `char dst[64]` in one function, a `char *dst` parameter in the next: sizeof dst would be 8.
  f = added("two.c",
            "void keep(const char *src) {\n  char dst[64];\n  strncpy(dst, src, sizeof dst - 1);\n}\n"
            "void copy_out(char *dst, const char *src) {\n  strcpy(dst, src);\n}\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 7);
  EXPECT_FALSE(f[0].edit);
  // The array declared in the same function still gets its rewrite.
  f = added("one.c", "void f(const char *src) {\n  char dst[64];\n  strcpy(dst, src);\n}\n");
  ASSERT_EQ(f.size(), 1u);
  ASSERT_TRUE(f[0].edit);
  EXPECT_EQ(f[0].edit->replacement, "  snprintf(dst, sizeof dst, \"%s\", src);");
  // A `char buf[64]` parameter is a pointer; an indented method's local array is not the member another one uses.
  f = added("param.cpp", "void param_array(char buf[64], const char *src) {\n  strcpy(buf, src);\n}\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_FALSE(f[0].edit);
  f = added("members.cpp",
            "struct Logger {\n  char *buf;\n  void a(const char *s) {\n    char buf[64];\n    strcpy(buf, s);\n  }\n"
            "  void b(const char *s) {\n    strcpy(buf, s);\n  }\n};\n");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_TRUE(f[0].edit);   // a's own array
  EXPECT_FALSE(f[1].edit);  // b's is the member, a char*
  // %p writes a bounded length, as the numeric conversions do.
  EXPECT_TRUE(added("p.c", "char buff[32];\nsprintf(buff, \"%p\", ptr);\n").empty());
}

// Found on jq's history (7 of 7 findings): a copy into memory allocated for
// the source's own length is the idiom, not an overflow.
TEST(CStringFunctions, ACopyIntoSpaceMadeForTheSourceIsFine) {
  EXPECT_TRUE(added("dup.c", "char *dup(const char *s) {\n  char *d = malloc(strlen(s) + 1);\n  if (d) strcpy(d, s);\n"
                             "  return d;\n}\n").empty());
  EXPECT_TRUE(added("cat.c", "char *join(const char *a, const char *b) {\n  char *r;\n"
                             "  r = jv_mem_alloc(strlen(a) + strlen(b) + 1);\n  strcpy(r, a);\n  strcat(r, b);\n"
                             "  return r;\n}\n").empty());
  EXPECT_TRUE(added("one.c", "char *dup(const char *s) {\n  char *d = calloc(1 + strlen(s), 1);\n  strcpy(d, s);\n"
                             "  return d;\n}\n").empty());
  EXPECT_TRUE(added("member.c", "void set(struct item *p, const char *s) {\n  p->name = malloc(sizeof(char) * (strlen(s) + 1));\n"
                                "  strcpy(p->name, s);\n}\n").empty());
  // Not the idiom: the allocation in another function or on one path, a size
  // that shrinks or leaves no room for the NUL, the destination moved or written
  // otherwise since, the source changed, a copy repeated or in a loop.
  for (const std::string body : {
           "void a(const char *s) {\n  char *d = malloc(strlen(s) + 1);\n  free(d);\n}\nvoid b(char *d, const char *s) {\n  strcpy(d, s);\n}\n",
           "void c(const char *s, int x, char *d) {\n  if (x) {\n    d = malloc(strlen(s) + 1);\n  }\n  strcpy(d, s);\n}\n",
           "void c(const char *s, int x, char *d) {\n  if (x) d = malloc(strlen(s) + 1);\n  strcpy(d, s);\n}\n",
           "void f(const char *s) {\n  char *d = malloc((strlen(s) + 1) / 2);\n  strcpy(d, s);\n}\n",
           "void f(const char *s) {\n  char *d = malloc(strlen(s) + 1 - 2);\n  strcpy(d, s);\n}\n",
           "void f(const char *p, const char *q) {\n  char *d = malloc(strlen(p) + strlen(q));\n  strcpy(d, p);\n}\n",
           "void f(const char *s) {\n  char *d = malloc(strlen(s) + 1);\n  s = getenv(\"X\");\n  strcpy(d, s);\n}\n",
           "void f(const char *s) {\n  char *d = malloc(strlen(s) + 1);\n  d += 2;\n  strcpy(d, s);\n}\n",
           "void f(const char *s) {\n  char *d = malloc(strlen(s) + 1);\n  memset(d, '>', 3);\n  d[3] = 0;\n  strcat(d, s);\n}\n",
           "void f(const char *s) {\n  char *d = malloc(strlen(s) + 1);\n  strcpy(d, s);\n  strcat(d, s);\n}\n",
           "void f(const char *s, int n) {\n  char *d = malloc(strlen(s) + 1);\n  *d = 0;\n  for (int i = 0; i < n; i++) strcat(d, s);\n}\n"}) {
    const auto f = added("not.c", body);
    EXPECT_FALSE(f.empty()) << body;
  }
  // One byte short (no room for the NUL), sized by another string, or reassigned since: still unbounded.
  EXPECT_EQ(added("short.c", "char *dup(const char *s) {\n  char *d = malloc(strlen(s));\n  strcpy(d, s);\n"
                             "  return d;\n}\n").size(), 1u);
  EXPECT_EQ(added("other.c", "void f(const char *s, const char *t) {\n  char *d = malloc(strlen(s) + 1);\n"
                             "  strcpy(d, t);\n}\n").size(), 1u);
  EXPECT_EQ(added("moved.c", "void f(const char *s, char *buf) {\n  char *d = malloc(strlen(s) + 1);\n  d = buf;\n"
                             "  strcpy(d, s);\n}\n").size(), 1u);
}

TEST(CStringFunctions, GetsIsABlocker) {
  const auto f = added("in.c", "char line[80];\nif (gets(line) == NULL) return;\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 3);
  EXPECT_EQ(f[0].severity, Severity::Blocker);
}

TEST(CStringFunctions, BoundedVariantsCommentsAndOtherLanguagesAreFine) {
  EXPECT_TRUE(added("copy.c", "strncpy(name, input, sizeof name - 1);\n"
                              "snprintf(buf, sizeof buf, \"%s\", s);\n"
                              "fgets(line, sizeof line, stdin);\n"
                              "// strcpy(name, input) used to overflow\n"
                              "obj->strcpy(a, b);\n"
                              "char *strcpy(char *dst, const char *src);\n")
                  .empty());
  EXPECT_TRUE(added("Util.java", "strcpy(name, input);\n").empty());
}

// Another function of the C name (fmt's own sprintf/vsprintf return a
// std::string and write to no buffer): a shape the C function cannot have.
TEST(CStringFunctions, AnotherFunctionOfTheSameNameIsNotTheCOne) {
  EXPECT_TRUE(added("printf.h", "  return vsprintf(fmt, make_printf_args(args...));\n"
                                "  return sprintf(\"%s\", n);\n"
                                "  auto s = sprintf(\"value \" \"%d\", v);\n"
                                "  strcpy(a, b, c);\n"
                                "  vsprintf(fmt,\n"
                                "           args);\n")
                  .empty());
  // The C shapes still are, on one line or several.
  EXPECT_EQ(added("log.c", "vsprintf(buf, fmt, ap);\n").size(), 1u);
  EXPECT_EQ(added("log.c", "vsprintf(buf,\n         fmt,\n         ap);\n").size(), 1u);
  EXPECT_EQ(added("log.c", "sprintf(out, \"%s=%s\", key, value);\n").size(), 1u);
  EXPECT_EQ(added("log.c", "return sprintf(out, \"%s\", name);\n").size(), 1u);
  // A comma between template arguments splits no argument.
  EXPECT_EQ(added("t.cpp", "strcpy(dst, std::pair<const char*, int>(u, 1).first);\n").size(), 1u);
}

TEST(PythonCalls, EvalExecAndShellTrue) {
  auto f = added("run.py", "value = eval(request.args[\"expr\"])\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 2);
  EXPECT_EQ(f[0].category, Category::Security);
  f = added("run.py", "exec(code)\n");
  ASSERT_EQ(f.size(), 1u);
  f = added("run.py", "subprocess.run(f\"tar xf {archive}\",\n               shell=True, check=True)\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 2);
  EXPECT_EQ(f[0].lastLine(), 3);
  EXPECT_EQ(f[0].severity, Severity::Major);
}

TEST(PythonCalls, SafeFormsAreFine) {
  EXPECT_TRUE(added("run.py", "model.eval()\n"
                              "data = ast.literal_eval(text)\n"
                              "# never eval(user_input)\n"
                              "x = eval(\"1 + 2\")\n"
                              "subprocess.run([\"tar\", \"xf\", archive], check=True)\n"
                              "subprocess.run(\"make clean\", shell=True)\n"
                              "def eval(self, x):\n"
                              "    \"\"\"Unlike eval(x), this is safe.\"\"\"\n")
                  .empty());
}

TEST(JavaScriptCalls, EvalAndInnerHtml) {
  auto f = added("app.js", "const result = eval(userInput);\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].category, Category::Security);
  f = added("view.tsx", "el.innerHTML = `<b>${comment.text}</b>`;\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].title.find("innerHTML"), std::string::npos);
  f = added("view.js", "list.innerHTML += item;\n");
  ASSERT_EQ(f.size(), 1u);
}

TEST(JavaScriptCalls, SafeFormsAreFine) {
  EXPECT_TRUE(added("app.js", "el.textContent = comment.text;\n"
                              "el.innerHTML = \"\";\n"
                              "// do not eval(userInput)\n"
                              "const re = /eval\\(/;\n"
                              "const x = obj.eval(data);\n"
                              "const html = el.innerHTML;\n")
                  .empty());
  EXPECT_TRUE(added("app.py", "el.innerHTML = html\n").empty());
}

}  // namespace
}  // namespace revline::builtin::testing
