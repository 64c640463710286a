// The Herald client kit as an Android library, for app developers who build with Gradle.
// NOT TESTED HERE: Gradle's and Google's repositories cannot be reached from Herald's build
// machines, so this project builds and tests the kit with javac and JUnit alone
// (Client/android/build). The sources are plain Java 17 with no dependency beyond the JDK;
// records and sealed interfaces need Android Gradle Plugin 8.1 or newer (its D8 desugars
// them for every API level the app supports).
plugins {
    id("com.android.library") version "8.5.2"
}

android {
    namespace = "org.herald.client"
    compileSdk = 35

    defaultConfig {
        // java.util.Base64 is on Android from API 26.
        minSdk = 26
    }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }

    sourceSets["main"].java.srcDirs("src/main/java")
    // The tests read docs/client.md from the repository (system property herald.root).
    sourceSets["test"].java.srcDirs("src/test/java")
}

dependencies {
    testImplementation("junit:junit:4.13.2")
}

tasks.withType<Test>().configureEach {
    systemProperty("herald.root", rootProject.projectDir.resolve("../..").canonicalPath)
}
