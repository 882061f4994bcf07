package com.example.payments;

import java.math.BigDecimal;
import java.util.Objects;

/** A payment as stored in the payments table. */
public final class Payment {

    public enum Status { PENDING, SETTLED, FAILED }

    private final String reference;
    private final BigDecimal amount;
    private final String currency;
    private final Status status;

    public Payment(String reference, BigDecimal amount, String currency, Status status) {
        this.reference = Objects.requireNonNull(reference, "reference");
        this.amount = Objects.requireNonNull(amount, "amount");
        this.currency = Objects.requireNonNull(currency, "currency");
        this.status = Objects.requireNonNull(status, "status");
    }

    public String getReference() {
        return reference;
    }

    public BigDecimal getAmount() {
        return amount;
    }

    public String getCurrency() {
        return currency;
    }

    public Status getStatus() {
        return status;
    }
}
