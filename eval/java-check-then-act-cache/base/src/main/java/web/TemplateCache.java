package web;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

public final class TemplateCache {
  private final ConcurrentMap<String, Template> templates = new ConcurrentHashMap<>();
  private final Function<String, Template> parser;

  public TemplateCache(Function<String, Template> parser) {
    this.parser = parser;
  }

  public Template get(String name) {
    return templates.computeIfAbsent(name, parser);
  }

  public interface Template {
    String render(Object model);
  }
}
