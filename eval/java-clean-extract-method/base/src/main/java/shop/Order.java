package shop;

public final class Order {
  private final String sku;
  private final int quantity;

  public Order(String sku, int quantity) {
    if (sku == null || sku.isBlank()) throw new IllegalArgumentException("sku is required");
    if (quantity <= 0) throw new IllegalArgumentException("quantity must be positive");
    this.sku = sku;
    this.quantity = quantity;
  }

  public String sku() { return sku; }
  public int quantity() { return quantity; }
}
