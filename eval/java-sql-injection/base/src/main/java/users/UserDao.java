package users;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

public final class UserDao {
  private final Connection connection;

  public UserDao(Connection connection) {
    this.connection = connection;
  }

  public Optional<Long> idForEmail(String email) throws SQLException {
    try (PreparedStatement st = connection.prepareStatement("SELECT id FROM users WHERE email = ?")) {
      st.setString(1, email);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
      }
    }
  }
}
