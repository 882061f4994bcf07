import logging

log = logging.getLogger(__name__)


class PaymentError(Exception):
    pass


def charge(client, account, cents):
    if cents <= 0:
        raise ValueError("amount must be positive")
    response = client.post("/charges", json={"account": account, "amount": cents})
    if response.status_code != 201:
        raise PaymentError(f"charge failed: {response.status_code}")
    return response.json()["id"]
