package com.example.payments;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** Accepts payment requests and refunds, and records them. */
public class PaymentService {

    private static final String SETTLEMENT_CURRENCY = "NGN";

    private final PaymentRepository repository;
    private final ExchangeRates exchangeRates;

    public PaymentService(PaymentRepository repository, ExchangeRates exchangeRates) {
        this.repository = repository;
        this.exchangeRates = exchangeRates;
    }

    public Payment createPayment(String reference, BigDecimal amount, String currency) throws SQLException {
        if (amount == null || amount.signum() < 0) {
            throw new IllegalArgumentException("amount must be zero or positive");
        }
        if (amount.compareTo(BigDecimal.ZERO) == 0) {
            throw new IllegalArgumentException("amount must not be zero");
        }
        Payment payment = new Payment(reference, amount, currency, settle(amount, currency), null, Payment.Status.PENDING);
        repository.save(payment);
        return payment;
    }

    /** Refunds part or all of a settled payment; the refunds of a payment never exceed its amount. */
    public Payment refund(String reference, BigDecimal refundAmount) throws SQLException {
        Payment original = repository.findByReference(reference)
                .orElseThrow(() -> new IllegalArgumentException("unknown payment " + reference));
        if (original.getStatus() != Payment.Status.SETTLED) {
            throw new IllegalStateException("only settled payments can be refunded");
        }
        List<Payment> earlier = repository.findRefunds(reference);
        BigDecimal refunded = earlier.stream().map(Payment::getAmount).reduce(BigDecimal.ZERO, BigDecimal::add);
        if (refunded.add(refundAmount).compareTo(original.getAmount()) > 0) {
            throw new IllegalArgumentException("refunds would exceed the payment amount");
        }
        String refundReference = reference + "-R" + (earlier.size() + 1);
        Payment refund = new Payment(refundReference, refundAmount, original.getCurrency(),
                settle(refundAmount, original.getCurrency()), reference, Payment.Status.PENDING);
        repository.save(refund);
        return refund;
    }

    public Optional<Payment> findPayment(String reference) throws SQLException {
        return repository.findByReference(reference);
    }

    // Amounts are settled in NGN; other currencies are converted at today's rate.
    private BigDecimal settle(BigDecimal amount, String currency) {
        if (!SETTLEMENT_CURRENCY.equals(currency)) {
            BigDecimal rate = exchangeRates.rateFor(currency, SETTLEMENT_CURRENCY);
            return amount.multiply(rate).setScale(2, RoundingMode.HALF_EVEN);
        }
        return amount;
    }
}
