package com.example.payments;

import java.math.BigDecimal;
import java.util.Objects;

/** A payment as stored in the payments table. */
public final class Payment {

    public enum Status { PENDING, SETTLED, FAILED }

    private final String reference;
    private final BigDecimal amount;
    private final String currency;
    private final BigDecimal settledAmount;
    private final String originalReference;
    private final Status status;

    public Payment(String reference, BigDecimal amount, String currency, BigDecimal settledAmount,
                   String originalReference, Status status) {
        this.reference = Objects.requireNonNull(reference, "reference");
        this.amount = Objects.requireNonNull(amount, "amount");
        this.currency = Objects.requireNonNull(currency, "currency");
        this.settledAmount = Objects.requireNonNull(settledAmount, "settledAmount");
        this.originalReference = originalReference;
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

    /** The amount in the settlement currency (NGN). */
    public BigDecimal getSettledAmount() {
        return settledAmount;
    }

    /** For a refund, the reference of the payment it refunds; null otherwise. */
    public String getOriginalReference() {
        return originalReference;
    }

    public Status getStatus() {
        return status;
    }
}
