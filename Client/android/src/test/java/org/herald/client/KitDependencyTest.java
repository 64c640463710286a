package org.herald.client;

import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.Test;

/** The kit needs nothing beyond the JDK: every import of the library is java.* or javax.* (all on Android too). */
public class KitDependencyTest {
    @Test
    public void theLibraryImportsOnlyTheJdk() throws IOException {
        Path sources = Path.of(System.getProperty("herald.root", "../.."), "Client", "android", "src", "main", "java");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(sources)) {
            files = walk.filter(path -> path.toString().endsWith(".java")).collect(Collectors.toList());
        }
        assertTrue(files.size() > 10);
        for (Path file : files) {
            for (String line : Files.readAllLines(file)) {
                if (!line.startsWith("import ")) continue;
                String name = line.replace("import static ", "").replace("import ", "");
                assertTrue(file.getFileName() + " imports " + name, name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("org.herald.client."));
            }
        }
    }
}
