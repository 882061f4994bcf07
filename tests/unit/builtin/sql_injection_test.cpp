// The SQL injection rule in each supported language, on real git diffs.
#include <gtest/gtest.h>

#include "tests/unit/builtin/review_fixture.h"

namespace revline::builtin::testing {
namespace {

using contract::Category;
using contract::Severity;

// Reviews a file that grows from one line ("// start" or "# start") to that
// line followed by `added`; added line k is file line k + 1.
std::vector<contract::Finding> added(const std::string& path, const std::string& lines) {
  const std::string first = path.ends_with(".py") ? "# start\n" : "// start\n";
  return review(path, first, first + lines);
}

void expectInjection(const std::vector<contract::Finding>& f, int line, int endLine, const std::string& sink) {
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, line);
  EXPECT_EQ(f[0].lastLine(), endLine);
  EXPECT_EQ(f[0].category, Category::Security);
  // 2 true of 96 in shipping code on the corpora: a comment, not a block.
  EXPECT_EQ(f[0].severity, Severity::Minor);
  EXPECT_NE(f[0].title.find(sink), std::string::npos) << f[0].title;
  EXPECT_LE(f[0].title.size(), 120u);
  EXPECT_TRUE(f[0].suggestedFix);
  EXPECT_FALSE(f[0].edit);
}

TEST(SqlInjection, JavaConcatenationInTheCall) {
  expectInjection(added("Dao.java", "ResultSet rs = stmt.executeQuery(\"SELECT * FROM users WHERE id = \" + id);\n"), 2, 2,
                  "executeQuery");
  expectInjection(added("Dao.java", "Query q = em.createQuery(\"FROM Order o WHERE o.owner = '\" + owner + \"'\");\n"), 2, 2,
                  "createQuery");
  expectInjection(added("Dao.java", "PreparedStatement ps = conn.prepareStatement(\n"
                                    "    \"DELETE FROM carts WHERE user_id = \" + user.getId());\n"),
                  2, 3, "prepareStatement");
}

TEST(SqlInjection, JavaSqlBuiltOnOneLineAndExecutedLater) {
  expectInjection(added("Dao.java", "String sql = \"UPDATE accounts SET name = '\" + name + \"'\";\n"
                                    "log(sql);\n"
                                    "Statement st = conn.createStatement();\n"
                                    "st.executeUpdate(sql);\n"),
                  2, 5, "executeUpdate");
  expectInjection(added("Dao.java", "String sql = \"SELECT * FROM t WHERE a = ?\";\n"
                                    "sql += \" AND b = \" + b;\n"
                                    "st.execute(sql);\n"),
                  2, 4, "execute");
}

TEST(SqlInjection, JavaParameterisedAndConstantSqlIsFine) {
  EXPECT_TRUE(added("Dao.java", "PreparedStatement ps = conn.prepareStatement(\"SELECT * FROM users WHERE id = ?\");\n"
                                "ps.setString(1, id);\n"
                                "ResultSet rs = ps.executeQuery();\n"
                                "String sql = \"SELECT \" + COLUMNS + \" FROM users WHERE id = ?\";\n"
                                "ps = conn.prepareStatement(sql);\n"
                                "executor.execute(() -> run(id));\n"
                                "// stmt.executeQuery(\"SELECT * FROM t WHERE id = \" + id);\n")
                  .empty());
}

TEST(SqlInjection, Python) {
  expectInjection(added("db.py", "cursor.execute(f\"SELECT * FROM users WHERE name = '{name}'\")\n"), 2, 2, "execute");
  expectInjection(added("db.py", "cur.execute(\"DELETE FROM t WHERE id = %s\" % item_id)\n"), 2, 2, "execute");
  expectInjection(added("db.py", "cur.execute(\"SELECT * FROM t WHERE id = \" + str(item_id))\n"), 2, 2, "execute");
  expectInjection(added("db.py", "cur.execute(\"SELECT * FROM t WHERE id = {}\".format(item_id))\n"), 2, 2, "execute");
  expectInjection(added("db.py", "query = f\"SELECT * FROM t WHERE id = {item_id}\"\ncur.execute(query)\n"), 2, 3, "execute");
  EXPECT_TRUE(added("db.py", "cur.execute(\"SELECT * FROM t WHERE id = %s\", (item_id,))\n"
                             "cur.execute(\"SELECT * FROM t WHERE id = %(id)s\", {\"id\": item_id})\n"
                             "# cur.execute(f\"SELECT * FROM t WHERE id = {item_id}\")\n")
                  .empty());
}

TEST(SqlInjection, JavaScriptAndTypeScript) {
  expectInjection(added("repo.ts", "const rows = await db.query(`SELECT * FROM users WHERE id = ${req.params.id}`);\n"), 2, 2,
                  "query");
  expectInjection(added("repo.js", "conn.execute(\"SELECT * FROM users WHERE email = '\" + email + \"'\", cb);\n"), 2, 2,
                  "execute");
  EXPECT_TRUE(added("repo.ts", "const rows = await db.query(\"SELECT * FROM users WHERE id = $1\", [id]);\n"
                               "const r = await pool.query(sql`SELECT * FROM users WHERE id = ${id}`);\n"
                               "const m = /x/.exec(input);\n")
                  .empty());
}

TEST(SqlInjection, Go) {
  expectInjection(added("store.go", "rows, err := db.Query(fmt.Sprintf(\"SELECT * FROM users WHERE id = %s\", id))\n"), 2, 2,
                  "Query");
  expectInjection(added("store.go", "q := \"DELETE FROM users WHERE id = \" + id\n_, err = db.ExecContext(ctx, q)\n"), 2, 3,
                  "ExecContext");
  EXPECT_TRUE(added("store.go", "rows, err := db.Query(\"SELECT * FROM users WHERE id = $1\", id)\n"
                                "_, err = db.Exec(fmt.Sprintf(\"DELETE FROM %s WHERE id = $1\", TABLE), id)\n")
                  .empty());
}

TEST(SqlInjection, CSharp) {
  expectInjection(added("Repo.cs", "var cmd = new SqlCommand($\"SELECT * FROM Users WHERE Id = {id}\", conn);\n"), 2, 2,
                  "SqlCommand");
  expectInjection(added("Repo.cs", "ctx.Database.ExecuteSqlRaw(\"DELETE FROM Users WHERE Name = '\" + name + \"'\");\n"), 2, 2,
                  "ExecuteSqlRaw");
  expectInjection(added("Repo.cs", "cmd.CommandText = $@\"SELECT * FROM Users WHERE Id = {id}\";\n"), 2, 2, "CommandText");
  EXPECT_TRUE(added("Repo.cs", "var users = ctx.Users.FromSqlInterpolated($\"SELECT * FROM Users WHERE Id = {id}\");\n"
                               "var cmd = new SqlCommand(\"SELECT * FROM Users WHERE Id = @id\", conn);\n"
                               "cmd.Parameters.AddWithValue(\"@id\", id);\n"
                               "using var reader = cmd.ExecuteReader();\n")
                  .empty());
  // A verbatim string over several lines (Dapper's tests): its second line's "+"
  // is text, not concatenation; it read as SQL built from parts, the finding
  // running on to the closing brace. What it is joined with after it closes still counts.
  EXPECT_TRUE(added("Repo.cs", "connection.Execute(@\"create proc #p as\n     select @Id + ISNULL(@x, 0) from \"\"t\"\"\");\n}\n")
                  .empty());
  expectInjection(added("Repo.cs", "connection.Execute(@\"select a\n     from t where id = \" + id);\n"), 2, 3, "Execute");
  // nameof(M) is the symbol's name, fixed at compile time (Dapper's procedure tests).
  EXPECT_TRUE(added("Repo.cs", "const string n = \"#\" + nameof(M);\nconnection.Execute($\"create proc {n} as select 1\");\n"
                               "connection.Execute($\"drop proc {nameof(M)}\");\n")
                  .empty());
  // A method of that name is any method; and in other languages nameof is any function.
  expectInjection(added("Repo.cs", "connection.Execute(\"select * from t where a = '\" + Util.nameof(name) + \"'\");\n"), 2, 2,
                  "Execute");
  EXPECT_EQ(added("db.py", "def f(cur, user_input):\n    cur.execute(\"select * from t where a = '\" + nameof(user_input) + \"'\")\n")
                .size(),
            1u);
}

TEST(SqlInjection, OnlyAddedLinesCount) {
  const std::string before = "class D {\n  void f() {\n    st.executeQuery(\"SELECT * FROM t WHERE id = \" + id);\n  }\n}\n";
  const std::string after = "class D {\n  void f() {\n    st.executeQuery(\"SELECT * FROM t WHERE id = \" + id);\n    log();\n  }\n}\n";
  EXPECT_TRUE(review("D.java", before, after).empty());
}

}  // namespace
}  // namespace revline::builtin::testing
