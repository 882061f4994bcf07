package com.example.payments;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/** JDBC access to the payments table. */
public class PaymentRepository {

    private final DataSource dataSource;

    public PaymentRepository(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public void save(Payment payment) throws SQLException {
        String sql = "INSERT INTO payments (reference, amount, currency, status) VALUES (?, ?, ?, ?)";
        try (Connection conn = dataSource.getConnection();
             PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setString(1, payment.getReference());
            ps.setBigDecimal(2, payment.getAmount());
            ps.setString(3, payment.getCurrency());
            ps.setString(4, payment.getStatus().name());
            ps.executeUpdate();
        }
    }

    public Optional<Payment> findByReference(String reference) throws SQLException {
        String sql = "SELECT reference, amount, currency, status FROM payments WHERE reference = ?";
        try (Connection conn = dataSource.getConnection();
             PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setString(1, reference);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(map(rs)) : Optional.empty();
            }
        }
    }

    private static Payment map(ResultSet rs) throws SQLException {
        return new Payment(rs.getString("reference"), rs.getBigDecimal("amount"), rs.getString("currency"),
                Payment.Status.valueOf(rs.getString("status")));
    }
}
