package stats;

public final class Counter {
  private long cnt;

  public void add(long n) {
    if (n < 0) throw new IllegalArgumentException("negative");
    cnt += n;
  }

  public long value() {
    return cnt;
  }
}
