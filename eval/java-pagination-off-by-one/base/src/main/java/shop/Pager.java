package shop;

public final class Pager {
  private final int pageSize;

  public Pager(int pageSize) {
    if (pageSize <= 0) throw new IllegalArgumentException("pageSize must be positive");
    this.pageSize = pageSize;
  }

  /** Number of pages needed to show {@code total} items. */
  public int pageCount(int total) {
    return (int) Math.ceil(total / (double) pageSize);
  }

  /** Index of the first item on page {@code page} (0-based). */
  public int firstIndex(int page) {
    return page * pageSize;
  }
}
