package com.example.payments;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Fetches exchange rates from the treasury service over HTTP. */
public class TreasuryClient {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI baseUri;

    public TreasuryClient(URI baseUri) {
        this.baseUri = baseUri;
    }

    public BigDecimal fetchRate(String from, String to) {
        HttpRequest request = HttpRequest.newBuilder(baseUri.resolve("/rates/" + from + "/" + to)).GET().build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("treasury answered " + response.statusCode() + " for " + from + "/" + to);
            }
            return new BigDecimal(response.body().trim());
        } catch (IOException e) {
            throw new IllegalStateException("treasury unreachable", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while fetching a rate", e);
        }
    }
}
