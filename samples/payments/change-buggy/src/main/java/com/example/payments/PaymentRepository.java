package com.example.payments;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** JDBC access to the payments table. */
public class PaymentRepository {

    private static final String COLUMNS = "reference, amount, currency, settled_amount, original_reference, status";

    private final DataSource dataSource;

    public PaymentRepository(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public void save(Payment payment) throws SQLException {
        String sql = "INSERT INTO payments (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?)";
        try (Connection conn = dataSource.getConnection();
             PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setString(1, payment.getReference());
            ps.setBigDecimal(2, payment.getAmount());
            ps.setString(3, payment.getCurrency());
            ps.setBigDecimal(4, payment.getSettledAmount());
            ps.setString(5, payment.getOriginalReference());
            ps.setString(6, payment.getStatus().name());
            ps.executeUpdate();
        }
    }

    public Optional<Payment> findByReference(String reference) throws SQLException {
        String sql = "SELECT " + COLUMNS + " FROM payments WHERE reference = ?";
        try (Connection conn = dataSource.getConnection();
             PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setString(1, reference);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(map(rs)) : Optional.empty();
            }
        }
    }

    /** Every refund issued against the payment {@code reference}, oldest first. */
    public List<Payment> findRefunds(String reference) throws SQLException {
        String sql = "SELECT " + COLUMNS + " FROM payments WHERE original_reference = '" + reference + "' ORDER BY created_at";
        try (Connection conn = dataSource.getConnection();
             Statement stmt = conn.createStatement();
             ResultSet rs = stmt.executeQuery(sql)) {
            List<Payment> refunds = new ArrayList<>();
            while (rs.next()) {
                refunds.add(map(rs));
            }
            return refunds;
        }
    }

    private static Payment map(ResultSet rs) throws SQLException {
        return new Payment(rs.getString("reference"), rs.getBigDecimal("amount"), rs.getString("currency"),
                rs.getBigDecimal("settled_amount"), rs.getString("original_reference"),
                Payment.Status.valueOf(rs.getString("status")));
    }
}
