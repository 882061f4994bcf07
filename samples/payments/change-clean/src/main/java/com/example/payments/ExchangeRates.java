package com.example.payments;

import java.math.BigDecimal;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Exchange rates for settlement; one instance per process, shared by all request threads. */
public final class ExchangeRates {

    private static final ExchangeRates INSTANCE =
            new ExchangeRates(new TreasuryClient(URI.create(System.getenv().getOrDefault("TREASURY_URL", "http://treasury:8080"))));

    private final TreasuryClient treasury;
    // Rates change once a day; the treasury call costs ~200 ms, so keep them.
    private final Map<String, BigDecimal> rates = new ConcurrentHashMap<>();

    private ExchangeRates(TreasuryClient treasury) {
        this.treasury = treasury;
    }

    public static ExchangeRates getInstance() {
        return INSTANCE;
    }

    /** How many units of {@code to} one unit of {@code from} buys. */
    public BigDecimal rateFor(String from, String to) {
        return rates.computeIfAbsent(from + "/" + to, pair -> treasury.fetchRate(from, to));
    }

    /** Drops the cached rates, e.g. after the daily rate publication. */
    public void clear() {
        rates.clear();
    }
}
