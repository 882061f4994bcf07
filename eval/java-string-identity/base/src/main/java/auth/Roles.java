package auth;

import java.util.Set;

public final class Roles {
  public static final String ADMIN = "admin";

  private Roles() {}

  public static boolean canDelete(String role, Set<String> grants) {
    if (ADMIN.equals(role)) {
      return true;
    }
    return grants.contains("delete");
  }
}
