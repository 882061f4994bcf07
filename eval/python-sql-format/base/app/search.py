def search_products(conn, term, limit=20):
    cur = conn.cursor()
    cur.execute(
        "SELECT id, name FROM products WHERE name LIKE %s ORDER BY name LIMIT %s",
        ("%" + term + "%", limit),
    )
    return cur.fetchall()
