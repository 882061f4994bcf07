package com.example.payments;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.Optional;

/** Accepts payment requests and records them. */
public class PaymentService {

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
        Payment payment = new Payment(reference, amount, currency, Payment.Status.PENDING);
        repository.save(payment);
        return payment;
    }

    public Optional<Payment> findPayment(String reference) throws SQLException {
        return repository.findByReference(reference);
    }
}
