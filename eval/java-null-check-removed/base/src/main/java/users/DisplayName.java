package users;

public final class DisplayName {
  private DisplayName() {}

  /** The nickname when the user set one, else "first last". */
  public static String of(String first, String last, String nickname) {
    if (nickname != null && !nickname.isEmpty()) {
      return nickname;
    }
    return (first + " " + last).trim();
  }
}
