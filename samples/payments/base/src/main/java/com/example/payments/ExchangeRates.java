package com.example.payments;

import java.math.BigDecimal;
import java.net.URI;

/** Exchange rates for settlement; one instance per process, shared by all request threads. */
public final class ExchangeRates {

    private static final ExchangeRates INSTANCE =
            new ExchangeRates(new TreasuryClient(URI.create(System.getenv().getOrDefault("TREASURY_URL", "http://treasury:8080"))));

    private final TreasuryClient treasury;

    private ExchangeRates(TreasuryClient treasury) {
        this.treasury = treasury;
    }

    public static ExchangeRates getInstance() {
        return INSTANCE;
    }

    /** How many units of {@code to} one unit of {@code from} buys. */
    public BigDecimal rateFor(String from, String to) {
        return treasury.fetchRate(from, to);
    }
}
