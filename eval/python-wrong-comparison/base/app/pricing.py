BULK_THRESHOLD = 10
BULK_DISCOUNT = 0.1


def total(unit_price, quantity):
    price = unit_price * quantity
    if quantity >= BULK_THRESHOLD:
        price *= 1 - BULK_DISCOUNT
    return round(price, 2)
